/**
 * The demo's MCP App (ext-apps apps.mdx): `order_book`'s result as an order card, served as the
 * `ui://bookshop/order-card` resource. One self-contained HTML document with no SDK: it speaks the App
 * side of the protocol with plain `postMessage` JSON-RPC (apps.mdx "Transport Layer") — `ui/initialize`,
 * `ui/notifications/initialized`, the tool input and result, `tools/call` of the app-only
 * `set_order_quantity` when the user changes the quantity, `ui/notifications/size-changed` as its content
 * grows, and `ui/resource-teardown`. Colours and fonts come from the host's standard CSS variables, with
 * fallbacks; every server-provided string goes through `textContent`.
 * @module
 */

/** The App's URI, named by `order_book` and `set_order_quantity` in their `_meta.ui.resourceUri`. */
export const ORDER_CARD_URI = 'ui://bookshop/order-card'

const STYLE = `
:root{color-scheme:light dark;--bg:var(--color-background-primary,light-dark(#fff,#1c1c1c));--fg:var(--color-text-primary,light-dark(#1a1a1a,#f2f2f2));--muted:var(--color-text-secondary,light-dark(#4a4a4a,#c8c8c8));--line:var(--color-border-primary,light-dark(#767676,#9a9a9a));--accent:var(--color-ring-primary,light-dark(#0b57d0,#8ab4f8));--radius:var(--border-radius-md,8px)}
html,body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 var(--font-sans,system-ui,sans-serif)}
main{padding:12px 14px}
h1{font-size:1.05rem;margin:0 0 4px}
p{margin:4px 0}
.muted{color:var(--muted)}
form{display:flex;gap:8px;align-items:end;flex-wrap:wrap;margin-top:10px}
label{display:flex;flex-direction:column;font-size:.9rem}
input{font:inherit;width:5em;min-height:2.75rem;box-sizing:border-box;padding:4px 6px;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg)}
button{font:inherit;min-height:2.75rem;padding:5px 12px;border:1px solid var(--line);border-radius:var(--radius);background:var(--bg);color:var(--fg);cursor:pointer}
button:disabled{cursor:progress;opacity:.7}
:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.error{color:light-dark(#a00,#ff8a80)}
`

/**
 * The App's script. Messages come only from `window.parent` (the host, through its sandbox), and only
 * JSON-RPC answers to our own ids or the notifications and requests the spec sends to a View are used.
 */
const SCRIPT = `(() => {
const $ = (id) => document.getElementById(id)
const host = window.parent
let nextId = 1, order
const pending = new Map()
function request(method, params) {
  const id = nextId++
  host.postMessage({ jsonrpc: '2.0', id, method, params }, '*')
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }))
}
const notify = (method, params) => host.postMessage({ jsonrpc: '2.0', method, params }, '*')
function show(o) {
  order = o
  $('title').textContent = o.title
  const states = { ordered: 'Ordered', backordered: 'Backordered', 'not-ordered': 'No order placed' }
  $('status').textContent = (states[o.status] || o.status) + (o.delivery ? ' · arrives ' + o.delivery : '')
  $('quantity-line').textContent = o.status === 'not-ordered' ? '' : 'Quantity: ' + o.quantity
  $('change').hidden = o.status === 'not-ordered'
  $('qty').value = String(o.quantity)
}
function showText(result) {
  const text = (result.content || []).filter((b) => b.type === 'text').map((b) => b.text).join('\\n')
  $('message').textContent = text
  $('message').className = result.isError ? 'error' : 'muted'
}
function onResult(result) {
  const o = result && result.structuredContent
  if (o && typeof o.title === 'string' && Number.isInteger(o.quantity)) show(o)
  if (result) showText(result)
}
addEventListener('message', (event) => {
  if (event.source !== host) return
  const m = event.data
  if (!m || m.jsonrpc !== '2.0') return
  if ('id' in m && !('method' in m)) {
    const p = pending.get(m.id)
    if (!p) return
    pending.delete(m.id)
    return m.error ? p.reject(new Error(String(m.error.message))) : p.resolve(m.result)
  }
  if (m.method === 'ui/notifications/tool-input') {
    const title = m.params && m.params.arguments && m.params.arguments.title
    if (typeof title === 'string' && !order) $('title').textContent = title
  } else if (m.method === 'ui/notifications/tool-result') onResult(m.params)
  else if (m.method === 'ui/notifications/tool-cancelled') {
    $('message').textContent = 'The order was cancelled.'
    $('message').className = 'error'
  } else if (m.method === 'ui/notifications/host-context-changed') applyTheme(m.params)
  else if (m.method === 'ui/resource-teardown') host.postMessage({ jsonrpc: '2.0', id: m.id, result: {} }, '*')
  else if ('id' in m && typeof m.method === 'string')
    host.postMessage({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } }, '*')
})
function applyTheme(context) {
  const variables = context && context.styles && context.styles.variables
  if (variables) for (const [name, value] of Object.entries(variables))
    if (name.startsWith('--') && typeof value === 'string') document.documentElement.style.setProperty(name, value)
  if (context && (context.theme === 'light' || context.theme === 'dark')) document.documentElement.style.colorScheme = context.theme
}
$('change').addEventListener('submit', async (event) => {
  event.preventDefault()
  const quantity = Number($('qty').value)
  const button = $('apply')
  button.disabled = true
  $('message').textContent = 'Changing the quantity…'
  $('message').className = 'muted'
  try {
    onResult(await request('tools/call', { name: 'set_order_quantity', arguments: { title: order.title, quantity } }))
  } catch (error) {
    $('message').textContent = 'Could not change the quantity: ' + error.message
    $('message').className = 'error'
  } finally {
    button.disabled = false
  }
})
let last = ''
new ResizeObserver(() => {
  const box = document.documentElement.getBoundingClientRect()
  const size = { width: Math.ceil(box.width), height: Math.ceil(box.height) }
  if (JSON.stringify(size) !== last) (last = JSON.stringify(size)), notify('ui/notifications/size-changed', size)
}).observe(document.documentElement)
request('ui/initialize', {
  appInfo: { name: 'bookshop-order-card', version: '0.1.0' },
  appCapabilities: { availableDisplayModes: ['inline'] },
  protocolVersion: '2026-01-26',
}).then((result) => {
  applyTheme(result && result.hostContext)
  notify('ui/notifications/initialized', {})
}, (error) => {
  $('message').textContent = 'The host refused the App: ' + error.message
  $('message').className = 'error'
})
})()`

/** The App's HTML document (text/html;profile=mcp-app). */
export const ORDER_CARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Order card</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1 id="title">Your order</h1>
<p id="status" class="muted">Waiting for the order…</p>
<p id="quantity-line"></p>
<form id="change" hidden>
<label>Quantity <input id="qty" type="number" min="1" max="10" step="1" value="1" required></label>
<button id="apply" type="submit">Change quantity</button>
</form>
<p id="message" class="muted" role="status" aria-live="polite"></p>
</main>
<script>${SCRIPT}</script>
</body>
</html>`
