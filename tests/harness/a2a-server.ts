/**
 * A local A2A agent for tests: JSON-RPC 2.0 over HTTP on 127.0.0.1, answering `message/send`
 * (A2A v0.3 shapes) with a Task, a Message, an error, raw bytes, or nothing, as the test says.
 * Every request is recorded. The agent card is served at /.well-known/agent-card.json.
 *
 *   const agent = await startA2aServer();                   // echoes: a completed Task, artifact "Echo: <text>"
 *   agent.reply({ kind: 'message', text: 'hi' });           // from now on
 *   agent.reply((req) => ({ kind: 'error', code: -32603, message: 'boom' }));
 *   … profile.a2a_url = agent.url …
 *   expect(agent.requests[0].text).toBe('the task');
 *   await agent.close();
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type A2aReply =
  /** A Task; its artifacts are text artifacts, statusText the status message's text. */
  | { kind: 'task'; state?: string; artifacts?: (string | { name?: string; text: string })[]; statusText?: string; id?: string }
  /** A direct Message from the agent. */
  | { kind: 'message'; text: string }
  /** A JSON-RPC error object (HTTP 200, as JSON-RPC servers answer). */
  | { kind: 'error'; code: number; message: string; data?: unknown; status?: number }
  /** Exactly these bytes: for non-JSON, HTML error pages, broken envelopes. */
  | { kind: 'raw'; body: string; status?: number; contentType?: string }
  /** A `result` as given (v1.0 shapes, odd results). */
  | { kind: 'result'; result: unknown }
  /** Never answers (until the client gives up or the server closes). */
  | { kind: 'hang' };

export interface A2aRecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body as sent. */
  raw: string;
  /** The parsed JSON body, when it was JSON. */
  body?: any;
  /** The text parts of params.message, joined (message/send only). */
  text?: string;
}

export type A2aResponder = A2aReply | ((request: A2aRecordedRequest) => A2aReply | Promise<A2aReply>);

export interface A2aServer {
  /** The JSON-RPC endpoint (what an agent profile's a2a_url holds). */
  url: string;
  /** http://127.0.0.1:port */
  origin: string;
  requests: A2aRecordedRequest[];
  /** Sets how message/send is answered from now on. */
  reply(responder: A2aResponder): void;
  close(): Promise<void>;
}

export interface A2aServerOptions {
  /** The endpoint's path (default "/a2a"). */
  path?: string;
  reply?: A2aResponder;
  name?: string;
}

const echo: A2aResponder = (req) => ({ kind: 'task', state: 'completed', artifacts: [`Echo: ${req.text ?? ''}`] });

export async function startA2aServer(options: A2aServerOptions = {}): Promise<A2aServer> {
  const path = options.path ?? '/a2a';
  let responder: A2aResponder = options.reply ?? echo;
  const requests: A2aRecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  let counter = 0;

  const server = http.createServer((req, res) => {
    // Extension pages without host permission for this port send CORS requests (with a preflight).
    res.setHeader('access-control-allow-origin', '*');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'GET, POST', 'access-control-allow-headers': 'content-type, authorization, accept', 'access-control-max-age': '600' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const reqPath = (req.url ?? '/').split('?')[0]!;
        if (req.method === 'GET' && reqPath === '/.well-known/agent-card.json') {
          json(res, 200, agentCard(`${origin}${path}`, options.name ?? 'Test agent'));
          return;
        }
        const record: A2aRecordedRequest = { method: req.method ?? '', path: reqPath, headers: req.headers, raw };
        requests.push(record);
        if (reqPath !== path) return json(res, 404, { error: 'not found' });
        if (req.method !== 'POST') return json(res, 405, { error: 'method not allowed' });
        try {
          record.body = JSON.parse(raw);
        } catch {
          return json(res, 200, rpcError(null, -32700, 'Parse error'));
        }
        const rpc = record.body;
        const id = rpc?.id ?? null;
        if (rpc?.jsonrpc !== '2.0' || typeof rpc.method !== 'string') return json(res, 200, rpcError(id, -32600, 'Invalid Request'));
        if (rpc.method !== 'message/send') return json(res, 200, rpcError(id, -32601, 'Method not found'));
        const message = rpc.params?.message;
        const problem = messageProblem(message);
        if (problem) return json(res, 200, rpcError(id, -32602, `Invalid params: ${problem}`));
        record.text = (message.parts as { kind: string; text?: string }[])
          .filter((p) => p.kind === 'text')
          .map((p) => p.text)
          .join('\n');

        const reply = typeof responder === 'function' ? await responder(record) : responder;
        const n = ++counter;
        switch (reply.kind) {
          case 'hang':
            hanging.add(res);
            res.on('close', () => hanging.delete(res));
            return;
          case 'raw':
            res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain; charset=utf-8' }).end(reply.body);
            return;
          case 'error':
            return json(res, reply.status ?? 200, rpcError(id, reply.code, reply.message, reply.data));
          case 'result':
            return json(res, 200, { jsonrpc: '2.0', id, result: reply.result });
          case 'message':
            return json(res, 200, {
              jsonrpc: '2.0',
              id,
              result: { kind: 'message', role: 'agent', messageId: `reply-${n}`, contextId: `ctx-${n}`, parts: [{ kind: 'text', text: reply.text }] },
            });
          case 'task': {
            const state = reply.state ?? 'completed';
            const taskId = reply.id ?? `task-${n}`;
            return json(res, 200, {
              jsonrpc: '2.0',
              id,
              result: {
                kind: 'task',
                id: taskId,
                contextId: `ctx-${n}`,
                status: {
                  state,
                  timestamp: new Date().toISOString(),
                  ...(reply.statusText
                    ? { message: { kind: 'message', role: 'agent', messageId: `status-${n}`, taskId, parts: [{ kind: 'text', text: reply.statusText }] } }
                    : {}),
                },
                artifacts: (reply.artifacts ?? []).map((a, i) => {
                  const { name, text } = typeof a === 'string' ? { name: undefined, text: a } : a;
                  return { artifactId: `artifact-${n}-${i}`, ...(name ? { name } : {}), parts: [{ kind: 'text', text }] };
                }),
                history: [message],
              },
            });
          }
        }
      })().catch((e) => {
        if (!res.headersSent) json(res, 500, { error: String(e) });
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${path}`,
    origin,
    requests,
    reply(next) {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Why a message/send message is not an A2A v0.3 user message, or undefined when it is one. */
function messageProblem(message: any): string | undefined {
  if (!message || typeof message !== 'object') return 'params.message is missing';
  if (message.kind !== 'message') return 'params.message.kind must be "message"';
  if (message.role !== 'user') return 'params.message.role must be "user"';
  if (typeof message.messageId !== 'string' || !message.messageId) return 'params.message.messageId is missing';
  if (!Array.isArray(message.parts) || !message.parts.length) return 'params.message.parts must be a non-empty array';
  if (message.parts.some((p: any) => p?.kind === 'text' && typeof p.text !== 'string')) return 'a text part has no text';
  return undefined;
}

const rpcError = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function agentCard(url: string, name: string) {
  return {
    protocolVersion: '0.3.0',
    name,
    description: 'A test agent that answers message/send as the test scripts it.',
    url,
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Answers what it is told to.', tags: ['test'] }],
  };
}
