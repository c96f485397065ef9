/**
 * Stands in for the MCP SDK's ajv-provider module in the extension bundle (an alias in the build
 * config points the SDK's import here). The SDK's Client imports ajv statically even when given
 * another validator; ajv compiles schemas with new Function, which extension CSP forbids, and it
 * weighs ~130 KB. Every Client here gets CfWorkerJsonSchemaValidator (mcp-servers.ts), so this
 * class is never constructed; if it ever is, the message says why.
 */
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error('The ajv JSON Schema validator is not bundled (it needs eval); pass jsonSchemaValidator: new CfWorkerJsonSchemaValidator() to the MCP Client.');
  }
}
