/**
 * An MCP server that breaks the protocol on purpose, written by hand (no SDK, which would refuse
 * to send what it sends): initialize and tools/list are correct, and each tool's tools/call reply
 * is broken in its own way. For the client's bad-input tests (unit and e2e): each must end in a
 * clear tool error, never a hang or a crash, and the session must go on.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The tools and what their tools/call replies are (the request's id filled in). */
export const BROKEN_REPLIES: Record<string, (id: unknown) => string> = {
  /** JSON cut off in the middle. */
  cut_json: (id) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","te`,
  /** Valid JSON that is not JSON-RPC. */
  not_jsonrpc: () => JSON.stringify({ hello: 'world' }),
  /** A result whose content is not a list of content items. */
  wrong_shape: (id) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: 'not a list' } }),
  /** An image whose data is not base64. */
  bad_base64: (id) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'image', data: '%%% not base64 %%%', mimeType: 'image/png' }] } }),
  /** A correct answer, to show the session goes on after the broken ones. */
  fine: (id) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'still here' }] } }),
};

export interface BrokenMcpServer {
  url: string;
  close(): Promise<void>;
}

export async function startBrokenMcpServer(): Promise<BrokenMcpServer> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      let msg: { id?: unknown; method?: string; params?: { name?: string; protocolVersion?: string } };
      try {
        msg = JSON.parse(body);
      } catch {
        return void res.writeHead(400).end();
      }
      const reply = (text: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      if (msg.id === undefined) return void res.writeHead(202).end();
      if (msg.method === 'initialize') {
        return reply(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'broken', version: '0' } } }));
      }
      if (msg.method === 'tools/list') {
        const tools = Object.keys(BROKEN_REPLIES).map((name) => ({ name, description: `Broken on purpose: ${name}.`, inputSchema: { type: 'object' } }));
        return reply(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { tools } }));
      }
      const broken = msg.method === 'tools/call' ? BROKEN_REPLIES[msg.params?.name ?? ''] : undefined;
      if (broken) return reply(broken(msg.id));
      reply(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
