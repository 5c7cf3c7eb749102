/**
 * The sandbox proxy page of MCP Apps (ext-apps apps.mdx "Sandbox proxy"): the outer iframe a web host
 * (`renderApp` of `edge-mcp/browser`) loads on an origin other than its own. The page tells its parent it is
 * ready, writes the App's HTML into an inner iframe that inherits the page's Content Security Policy (built
 * here, as a response header, from the CSP the App declared), and relays every other message both ways.
 * @module
 */
import { appCsp, cspProblem, type McpUiResourceCsp } from '../protocol/apps.ts'

/** Options of {@link appSandboxResponse}. */
export interface AppSandboxOptions {
  /**
   * The origins of the host pages allowed to frame the sandbox (`frame-ancestors`, e.g.
   * `['https://chat.example.com']`). Default: any page (set it in production: the sandbox page runs an
   * App's script on this origin, so any page that frames it can run its own script there).
   */
  hostOrigins?: string[]
}

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/i

/**
 * The script of the page. It learns its host's origin from the `host` query parameter (a frame on another
 * origin never receives what it posts), takes `sandbox-resource-ready` only from that parent, drops every
 * `ui/notifications/sandbox-*` message of the App, and posts to the parent with its exact origin.
 */
const SCRIPT = `(()=>{
const host=new URLSearchParams(location.search).get("host"),parent=window.parent,own=location.origin;
if(parent===window||!host)return;
const inner=document.createElement("iframe");
inner.setAttribute("sandbox","allow-scripts allow-same-origin allow-forms");
inner.style.cssText="border:0;width:100%;height:100%;display:block";
inner.title=document.title;
let loaded=false;
const reserved=d=>typeof d?.method==="string"&&d.method.startsWith("ui/notifications/sandbox-");
addEventListener("message",e=>{
const d=e.data;
if(e.source===parent&&e.origin===host){
if(!reserved(d))return void inner.contentWindow?.postMessage(d,own);
if(d.method!=="ui/notifications/sandbox-resource-ready"||loaded||typeof d.params?.html!=="string")return;
loaded=true;
const p=d.params.permissions,allow=[];
if(p&&typeof p==="object")for(const[k,f]of[["camera","camera"],["microphone","microphone"],["geolocation","geolocation"],["clipboardWrite","clipboard-write"]])if(p[k])allow.push(f);
if(allow.length)inner.setAttribute("allow",allow.join("; "));
document.body.append(inner);
const doc=inner.contentDocument;doc.open();doc.write(d.params.html);doc.close();
}else if(e.source&&e.source===inner.contentWindow&&e.origin===own&&!reserved(d))parent.postMessage(d,host);
});
parent.postMessage({jsonrpc:"2.0",method:"ui/notifications/sandbox-proxy-ready",params:{}},host);
})()`

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>MCP App</title><style>html,body{margin:0;height:100%;overflow:hidden;background:transparent}</style></head><body><script>${SCRIPT}</script></body></html>`

/**
 * The declared CSP of a sandbox URL's `csp` query parameter (JSON of an `McpUiResourceCsp`): undefined
 * (the restrictive default) when it is absent or malformed in any way — a problem never loosens the policy.
 */
export function sandboxCsp(param: string | null): McpUiResourceCsp | undefined {
  if (param === null) return undefined
  let csp: unknown
  try {
    csp = JSON.parse(param)
  } catch {
    return undefined
  }
  return csp !== null && typeof csp === 'object' && cspProblem(csp) === undefined ? csp : undefined
}

/**
 * Answer a GET of the MCP Apps sandbox proxy page (apps.mdx "Sandbox proxy"), for a Worker or any fetch
 * handler to serve on an origin **other than the host page's** (e.g. `sandbox.example.com`, or `localhost`
 * beside `127.0.0.1` in development) — an origin that holds nothing worth stealing (no cookies, no storage).
 *
 * The request's query, as `renderApp` builds it: `host` (the host page's origin, e.g.
 * `https://chat.example.com`; the page posts only to it and obeys only it) and `csp` (JSON of the App's
 * declared `McpUiResourceCsp`). The response: the page, `Content-Security-Policy: appCsp(csp)` (the
 * restrictive default when `csp` is absent or malformed; `frame-ancestors` from `options.hostOrigins`),
 * `Cache-Control: no-store`, `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`. The App's
 * document, written into the page's inner iframe (`sandbox="allow-scripts allow-same-origin allow-forms"`,
 * `allow` from the notification's `permissions`), inherits that policy.
 *
 * `400` (text) when `host` is not an `http(s)` origin, or is not one of `options.hostOrigins`; `405` for a
 * method other than GET and HEAD.
 * @throws TypeError when `options.hostOrigins` holds something that is not an `http(s)` origin.
 */
export function appSandboxResponse(request: Request, options: AppSandboxOptions = {}): Response {
  const { hostOrigins } = options
  if (hostOrigins !== undefined) {
    const bad: unknown = Array.isArray(hostOrigins) ? hostOrigins.find((o) => !ORIGIN.test(o)) : hostOrigins
    if (!Array.isArray(hostOrigins) || bad !== undefined)
      throw new TypeError(
        `hostOrigins must be an array of origins such as https://chat.example.com (no path, no trailing /), not ${JSON.stringify(bad)}`,
      )
  }
  const text = (status: number, body: string, headers: Record<string, string> = {}) =>
    new Response(body, {
      status,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
    })
  if (request.method !== 'GET' && request.method !== 'HEAD')
    return text(405, 'Method Not Allowed', { Allow: 'GET, HEAD' })
  const query = new URL(request.url).searchParams
  const host = query.get('host') ?? ''
  if (!ORIGIN.test(host))
    return text(400, 'the sandbox page needs ?host=<the origin of the host page>, e.g. https://chat.example.com')
  if (hostOrigins && !hostOrigins.includes(host))
    return text(400, `host ${host} is not one of the allowed host origins`)
  let policy = appCsp(sandboxCsp(query.get('csp')))
  if (hostOrigins) policy += `; frame-ancestors ${hostOrigins.join(' ')}`
  return new Response(request.method === 'HEAD' ? null : PAGE, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': policy,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  })
}
