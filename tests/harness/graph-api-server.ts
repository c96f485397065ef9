/**
 * A local stand-in for Meta's Graph API (127.0.0.1): Instagram content publishing
 * (/{ig-user-id}/media, /{ig-user-id}/media_publish) and the WhatsApp Cloud API
 * (/{phone-number-id}/messages), answering as the real endpoints do, with Graph error objects
 * for bad tokens and missing parameters. Every request is recorded; a test can queue one-off
 * answers or take over completely.
 *
 *   const graph = await startGraphApiServer({ token: 'tok' });
 *   settings.instagramApiBase = graph.url;                    // http://127.0.0.1:port/v21.0
 *   graph.enqueue(graphErrorAnswer({ message: 'Invalid OAuth access token.', code: 190 }, 401));
 *   expect(graph.requests.map((r) => r.path)).toEqual(['/v21.0/17841/media', …]);
 *   await graph.close();
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphRecordedRequest {
  method: string;
  /** The path with the version prefix ("/v21.0/17841/media"). */
  path: string;
  /** The path's parts after the version: [id, edge]. */
  id: string;
  edge: string;
  headers: http.IncomingHttpHeaders;
  /** Query, form body and JSON body fields (strings as sent; JSON fields as parsed). */
  params: Record<string, any>;
  raw: string;
  /** The access token, from the Authorization header or the access_token field. */
  token?: string;
}

export interface GraphAnswer {
  status: number;
  /** An object is sent as JSON; a string as it is (non-JSON answers). */
  body: unknown;
  contentType?: string;
}

export type GraphHandler = (request: GraphRecordedRequest) => GraphAnswer | undefined | Promise<GraphAnswer | undefined>;

export interface GraphApiServer {
  /** The API base, version included: what instagramApiBase / whatsappApiBase hold. */
  url: string;
  origin: string;
  requests: GraphRecordedRequest[];
  /** Answers the next request with `answer` (queued answers go first, in order). */
  enqueue(...answers: GraphAnswer[]): void;
  /** Takes over answering; returning undefined falls back to the built-in behaviour. */
  handle(handler: GraphHandler | undefined): void;
  close(): Promise<void>;
}

export interface GraphApiServerOptions {
  /** The access token the server accepts (default: any non-empty token). */
  token?: string;
  /** The version prefix (default "v21.0"). */
  version?: string;
}

/** A Graph error object answer, as the API sends it. */
export function graphErrorAnswer(
  error: { message: string; type?: string; code: number; error_subcode?: number; fbtrace_id?: string; error_user_title?: string; error_user_msg?: string },
  status = 400,
): GraphAnswer {
  return { status, body: { error: { type: 'OAuthException', fbtrace_id: 'AbCdEfGh123', ...error } } };
}

export async function startGraphApiServer(options: GraphApiServerOptions = {}): Promise<GraphApiServer> {
  const version = options.version ?? 'v21.0';
  const requests: GraphRecordedRequest[] = [];
  const queue: GraphAnswer[] = [];
  let handler: GraphHandler | undefined;
  let counter = 0;

  const builtIn = (r: GraphRecordedRequest): GraphAnswer => {
    if (r.method !== 'POST') return graphErrorAnswer({ message: `Unsupported get request. Object with ID '${r.id}' does not exist`, type: 'GraphMethodException', code: 100, error_subcode: 33 });
    if (!r.token || (options.token !== undefined && r.token !== options.token)) {
      return graphErrorAnswer({ message: r.token ? 'Invalid OAuth access token - Cannot parse access token' : 'An active access token must be used to query information about the current user.', code: 190 }, r.token ? 401 : 400);
    }
    const n = ++counter;
    switch (r.edge) {
      case 'media':
        if (!r.params.image_url && !r.params.video_url) return graphErrorAnswer({ message: 'The parameter image_url is required', code: 100 });
        return { status: 200, body: { id: `1790000000000${n}` } };
      case 'media_publish':
        if (!r.params.creation_id) return graphErrorAnswer({ message: 'The parameter creation_id is required', code: 100 });
        return { status: 200, body: { id: `1791000000000${n}` } };
      case 'messages': {
        const p = r.params;
        if (p.messaging_product !== 'whatsapp') return graphErrorAnswer({ message: '(#100) The parameter messaging_product is required.', code: 100 });
        if (!p.to) return graphErrorAnswer({ message: '(#100) The parameter to is required.', code: 100 });
        if (p.type === 'text' && !p.text?.body) return graphErrorAnswer({ message: '(#100) The parameter text[\'body\'] is required.', code: 100 });
        return {
          status: 200,
          body: { messaging_product: 'whatsapp', contacts: [{ input: p.to, wa_id: p.to }], messages: [{ id: `wamid.HBgLTEST${n}` }] },
        };
      }
      default:
        return graphErrorAnswer({ message: `Unknown path components: /${r.edge}`, code: 2500 });
    }
  };

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
        const url = new URL(req.url ?? '/', 'http://x');
        const raw = Buffer.concat(chunks).toString('utf8');
        const params: Record<string, any> = Object.fromEntries(url.searchParams);
        const type = String(req.headers['content-type'] ?? '');
        if (type.includes('application/json')) {
          try {
            Object.assign(params, JSON.parse(raw));
          } catch {
            /* recorded raw; the built-in answer will miss the fields */
          }
        } else if (raw) {
          Object.assign(params, Object.fromEntries(new URLSearchParams(raw)));
        }
        const parts = url.pathname.split('/').filter(Boolean);
        const afterVersion = parts[0] === version ? parts.slice(1) : parts;
        const auth = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
        const record: GraphRecordedRequest = {
          method: req.method ?? '',
          path: url.pathname,
          id: decodeURIComponent(afterVersion[0] ?? ''),
          edge: afterVersion.slice(1).join('/'),
          headers: req.headers,
          params,
          raw,
          ...((auth ?? params.access_token) ? { token: auth ?? String(params.access_token) } : {}),
        };
        requests.push(record);
        const answer = queue.shift() ?? (await handler?.(record)) ?? builtIn(record);
        const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? (typeof answer.body === 'string' ? 'text/html; charset=utf-8' : 'application/json; charset=UTF-8') }).end(body);
      })().catch((e) => {
        if (!res.headersSent) res.writeHead(500).end(String(e));
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/${version}`,
    origin,
    requests,
    enqueue: (...answers) => void queue.push(...answers),
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
