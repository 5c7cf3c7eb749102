/**
 * The web demo: connect to an MCP endpoint, list its tools, prompts and resources, call one with
 * arguments from a form built from its schema, and watch the input-required rounds — the server's
 * questions are rendered by `edge-mcp/browser`, and each round shows the opaque `requestState` that went
 * back. Against a 2025-era server (the client finds the era itself) there are no rounds: the server asks
 * on the call's own stream, and the rounds view lists those requests and their answers instead. Plain
 * DOM; every server-provided string goes through `textContent`.
 * @module
 */
import {
  Client,
  NetworkError,
  StreamableHttpClientTransport,
  TaskEndedError,
  type ElicitationCallback,
  type RoundInfo,
} from '../../src/client/index.ts'
import {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  META,
  UriTemplate,
  type CallToolResult,
  type DetailedTask,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '../../src/index.ts'
import {
  DEFAULT_STYLESHEET,
  SamplingDeclinedError,
  createElicitationHandler,
  createSamplingHandler,
} from '../../src/browser/index.ts'
import { closeApp, offered, showApp } from './app-view.ts'
import { argumentsForm, type ObjectSchema } from './args-form.ts'
import { eraExplanation, eraLabel, isLegacy, recorded, type ServerRequestView } from './eras.ts'
import { popupSignIn } from './sign-in.ts'
import {
  forgetTask,
  hideTask,
  isTerminal,
  saveTask,
  savedTask,
  showEnded,
  showTask,
  type SavedTask,
  type TaskView,
} from './task-view.ts'
import { describeRequest, el, errorText, roundItem } from './view.ts'

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T
}

const ui = {
  connect: byId<HTMLFormElement>('connect'),
  endpoint: byId<HTMLInputElement>('endpoint'),
  status: byId<HTMLParagraphElement>('status'),
  hint: byId<HTMLParagraphElement>('hint'),
  signIn: byId<HTMLDivElement>('sign-in'),
  tools: byId<HTMLUListElement>('tools'),
  prompts: byId<HTMLUListElement>('prompts'),
  resources: byId<HTMLUListElement>('resources'),
  call: byId<HTMLElement>('call'),
  callTitle: byId<HTMLHeadingElement>('call-title'),
  callDescription: byId<HTMLParagraphElement>('call-description'),
  args: byId<HTMLFormElement>('args'),
  questions: byId<HTMLElement>('questions'),
  era: byId<HTMLParagraphElement>('era'),
  rounds: byId<HTMLOListElement>('rounds'),
  roundsSection: byId<HTMLElement>('rounds-section'),
  result: byId<HTMLDivElement>('result'),
  resultSection: byId<HTMLElement>('result-section'),
}
/** The task panel: shown while a call runs as a task. */
const taskView: TaskView = {
  section: byId('task'),
  status: byId('task-status'),
  id: byId('task-id'),
  progress: byId('task-progress'),
  cancel: byId('task-cancel'),
}

let client: Client | undefined
/**
 * The latest connect(): a newer one aborts it, so an earlier connect still in flight (a slow endpoint) stops,
 * closes its client and never writes to the page, and a call in progress on the old client is abandoned.
 */
let connection: AbortController | undefined
let serverLabel = 'The server'
/** The connected endpoint's URL (a saved task belongs to it). */
let endpointUrl: string | undefined

function setStatus(text: string, isError = false): void {
  ui.status.textContent = text
  ui.status.classList.toggle('error', isError)
}

/** What the user refused during the call in progress (Decline or Cancel in a question), if anything. */
let refused: 'decline' | 'cancel' | undefined

/** The elicitation callback, noting a Decline or Cancel so that the call's result is shown as the user's answer. */
function notingRefusals(elicitation: ElicitationCallback): ElicitationCallback {
  return async (params, ctx) => {
    const answer = await elicitation(params, ctx)
    if (answer.action !== 'accept') refused ??= answer.action
    return answer
  }
}

/** The empty state's hint: what to try first (the demo's order_book when the server has it). */
function showHint(tools: readonly Tool[]): void {
  const demo = tools.some((t) => t.name === 'order_book')
  ui.hint.replaceChildren(
    ...(demo
      ? [
          'Try this: press ',
          el('strong', undefined, 'Call…'),
          ' next to ',
          el('code', undefined, 'order_book'),
          ', type ',
          el('strong', undefined, 'Neuromancer'),
          ' as the title and press ',
          el('strong', undefined, 'Call tool'),
          '. It is out of stock, so the server asks you a question first.',
        ]
      : ['Pick a tool, prompt or resource to call it.']),
  )
  ui.hint.hidden = false
}

// ------------------------------------------------------------------ connecting and listing

async function connect(endpoint: string): Promise<void> {
  connection?.abort()
  const attempt = new AbortController()
  connection = attempt
  const { signal } = attempt
  void closeApp()
  for (const list of [ui.tools, ui.prompts, ui.resources]) list.replaceChildren()
  ui.call.hidden = true
  ui.hint.hidden = true
  ui.rounds.replaceChildren()
  ui.result.replaceChildren()
  ui.roundsSection.hidden = ui.resultSection.hidden = true
  ui.era.textContent = ''
  hideTask(taskView)
  // a 2025-era session ends with DELETE (nothing to do for a 2026-07-28 server)
  void client?.close().catch(() => {})
  client = endpointUrl = undefined
  let url: string
  try {
    url = new URL(endpoint, location.href).href
  } catch {
    setStatus(`Could not connect: "${endpoint}" is not a URL.`, true)
    return
  }
  setStatus(`Connecting to ${url}…`)
  const c: Client = new Client({
    // a protected endpoint (401) asks the user to sign in; a 403 for a missing scope, to sign in again
    transport: new StreamableHttpClientTransport(url, { auth: popupSignIn(ui.signIn) }),
    clientInfo: { name: 'edge-mcp-web-demo', version: '0.1.0' },
    // an MCP Apps host (app-view.ts); ?era=legacy speaks 2025-11-25 to a server that has both eras
    extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } },
    ...(new URLSearchParams(location.search).get('era') === 'legacy' ? { versionNegotiation: 'legacy' as const } : {}),
    ...recorded(() => c, serverRequests, {
      elicitation: notingRefusals(createElicitationHandler({ container: ui.questions, serverName: () => serverLabel })),
      sampling: createSamplingHandler({ container: ui.questions, serverName: () => serverLabel }),
    }),
  })
  /** Whether a newer connect() took over: then this client is closed and the page is left to the newer one. */
  const superseded = (): boolean => {
    if (signal.aborted) void c.close().catch(() => {})
    return signal.aborted
  }
  let offers: { tools?: unknown; prompts?: unknown; resources?: unknown }
  try {
    const discovered = await c.discover({ signal })
    if (superseded()) return
    const info = discovered._meta?.[META.serverInfo] as { name?: string; title?: string; version?: string } | undefined
    // the title is whatever the server claims; the host is where the page really talks to
    const host = new URL(url).host
    serverLabel = info?.title || info?.name ? `${info.title ?? info.name} at ${host}` : host
    offers = discovered.capabilities
    // the era label names the version spoken; others the server supports are listed (a 2025-era server's
    // "versions" are just the one initialize agreed on)
    const others = isLegacy(c) ? [] : discovered.supportedVersions.filter((v) => v !== c.protocolVersion)
    const versions = others.length ? ` (also supports ${others.join(', ')})` : ''
    setStatus(`Connected to ${info?.name ?? 'a server'} ${info?.version ?? ''} at ${url}${versions} · ${eraLabel(c)}`)
    ui.era.textContent = eraExplanation(c)
  } catch (error) {
    if (superseded()) return
    // a NetworkError names the URL itself ("Could not reach <url>: …")
    setStatus(error instanceof NetworkError ? error.message : `Could not connect to ${url}: ${errorText(error)}`, true)
    return
  }
  // list only what the server declares (an undeclared list is an empty one, not an error)
  const none = Promise.resolve([])
  const [tools, prompts, resources, templates] = await Promise.allSettled([
    offers.tools ? c.listTools({ signal }) : none,
    offers.prompts ? c.listPrompts({ signal }) : none,
    offers.resources ? c.listResources({ signal }) : none,
    offers.resources ? c.listResourceTemplates({ signal }) : none,
  ])
  if (superseded()) return
  client = c
  endpointUrl = url
  // a tool only an App may call (visibility ['app']) is not offered here
  const modelTools = tools.status === 'fulfilled' ? { ...tools, value: tools.value.filter(offered) } : tools
  fill(ui.tools, modelTools, (tool: Tool) =>
    item(tool.title ?? tool.name, tool.description, 'Call…', () => selectTool(tool)),
  )
  fill(ui.prompts, prompts, (prompt: Prompt) =>
    item(prompt.title ?? prompt.name, prompt.description, 'Get…', () => selectPrompt(prompt)),
  )
  fill(ui.resources, resources, (resource: Resource) =>
    item(resource.uri, resource.description, 'Read', () => void readResource(resource.uri)),
  )
  fill(ui.resources, templates, (template: ResourceTemplate) =>
    item(template.uriTemplate, template.description, 'Read…', () => selectTemplate(template)),
  )
  for (const list of [ui.tools, ui.prompts, ui.resources]) if (!list.firstChild) list.append(el('li', 'empty', 'None.'))
  showHint(tools.status === 'fulfilled' ? tools.value : [])
  // a task this tab started on this endpoint before a reload: resume it
  const saved = savedTask(url)
  if (saved) void resumeTask(saved)
}

function fill<T>(list: HTMLUListElement, settled: PromiseSettledResult<T[]>, render: (x: T) => HTMLLIElement): void {
  if (settled.status === 'rejected') list.append(el('li', 'error', errorText(settled.reason)))
  else list.append(...settled.value.map(render))
}

function item(name: string, description: string | undefined, action: string, onClick: () => void): HTMLLIElement {
  const li = el('li')
  const button = el('button', undefined, action)
  button.type = 'button'
  button.setAttribute('aria-label', `${action.replace('…', '')} ${name}`)
  button.addEventListener('click', onClick)
  li.append(el('code', 'name', name), ' ', button)
  if (description) li.append(el('p', 'description', description))
  return li
}

// ------------------------------------------------------------------ the arguments form

function showForm(
  title: string,
  description: string | undefined,
  schema: ObjectSchema,
  submitText: string,
  run: (args: Record<string, unknown>) => Promise<void>,
): void {
  ui.call.hidden = false
  ui.callTitle.textContent = title
  ui.callDescription.textContent = description ?? ''
  const form = argumentsForm(schema, 'arg')
  const submit = el('button', undefined, submitText)
  submit.type = 'submit'
  ui.args.replaceChildren(...form.fields, submit)
  ui.args.onsubmit = async (event) => {
    event.preventDefault()
    let args: Record<string, unknown>
    try {
      args = form.read()
    } catch (error) {
      showError(error)
      return
    }
    submit.disabled = true
    try {
      await run(args)
    } finally {
      submit.disabled = false
    }
  }
  ;(ui.args.querySelector<HTMLElement>('input, select, textarea') ?? submit).focus()
}

/** Resume a saved task (after a reload): the same view as the call that started it. */
function resumeTask(saved: SavedTask): Promise<void> {
  return track(saved.label, (c, options) => c.resumeTask(saved.taskId, options), renderToolResult)
}

function selectTool(tool: Tool): void {
  showForm(`Tool: ${tool.name}`, tool.description, tool.inputSchema as ObjectSchema, 'Call tool', (args) =>
    track(
      `tools/call ${tool.name} ${JSON.stringify(args)}`,
      (c, options) => c.callTool(tool.name, args, options),
      (result) => {
        renderToolResult(result)
        if (client) void showApp(client, tool, args, result, ui.result)
      },
    ),
  )
}

function selectPrompt(prompt: Prompt): void {
  const schema: ObjectSchema = { properties: {}, required: [] }
  for (const a of prompt.arguments ?? []) {
    schema.properties![a.name] = {
      type: 'string',
      ...(a.title ? { title: a.title } : {}),
      ...(a.description ? { description: a.description } : {}),
    }
    if (a.required) schema.required!.push(a.name)
  }
  showForm(`Prompt: ${prompt.name}`, prompt.description, schema, 'Get prompt', (args) =>
    track(
      `prompts/get ${prompt.name} ${JSON.stringify(args)}`,
      (c, options) => c.getPrompt(prompt.name, args as Record<string, string>, options),
      renderPromptResult,
    ),
  )
}

function selectTemplate(template: ResourceTemplate): void {
  const uriTemplate = new UriTemplate(template.uriTemplate)
  const schema: ObjectSchema = {
    properties: Object.fromEntries(uriTemplate.variables.map((name) => [name, { type: 'string' }])),
    required: [...uriTemplate.variables],
  }
  showForm(`Resource template: ${template.uriTemplate}`, template.description, schema, 'Read resource', (vars) =>
    readResource(uriTemplate.expand(vars as Record<string, string>)),
  )
}

function readResource(uri: string): Promise<void> {
  return track(`resources/read ${uri}`, (c, options) => c.readResource(uri, options), renderResourceResult)
}

// ------------------------------------------------------------------ a call, its rounds, its result

/**
 * Run one call: clear the rounds and result, record every round, render the result or the error. A call the
 * server runs as a task shows the task panel (status, progress, Cancel) and keeps the task's id in
 * sessionStorage while it runs, so that a reload resumes it. Connecting again aborts the call (its form goes
 * away; a task is cancelled) and nothing of it is shown.
 */
async function track<R>(
  label: string,
  call: (
    c: Client,
    options: { onRound: (info: RoundInfo) => void; onTask: (task: DetailedTask) => void; signal: AbortSignal },
  ) => Promise<R>,
  render: (result: R) => void,
): Promise<void> {
  if (!client || !connection || !endpointUrl) return setStatus('Not connected.', true)
  await closeApp() // a new call replaces the App of the last one
  const connectionSignal = connection.signal
  const endpoint = endpointUrl
  // the call's own signal: the task's Cancel button aborts it (the client then sends tasks/cancel)
  const controller = new AbortController()
  const follow = () => controller.abort(connectionSignal.reason)
  connectionSignal.addEventListener('abort', follow, { once: true })
  let taskId: string | undefined
  const onTask = (task: DetailedTask) => {
    taskId = task.taskId
    showTask(taskView, task)
    if (isTerminal(task.status)) forgetTask()
    else saveTask({ taskId: task.taskId, endpoint, label })
  }
  hideTask(taskView)
  taskView.cancel.onclick = () => controller.abort(new DOMException('The user cancelled the task.', 'AbortError'))
  ui.hint.hidden = true
  ui.roundsSection.hidden = ui.resultSection.hidden = false
  ui.rounds.replaceChildren()
  ui.result.replaceChildren(el('p', 'pending', `${label} …`))
  refused = undefined
  try {
    const result = await call(client, {
      onRound: (info) => ui.rounds.append(roundItem(info)),
      onTask,
      signal: controller.signal,
    })
    if (connectionSignal.aborted) return
    ui.result.replaceChildren(el('p', 'call', label))
    render(result)
  } catch (error) {
    if (connectionSignal.aborted) return
    ui.result.replaceChildren(el('p', 'call', label))
    if (taskId !== undefined && controller.signal.aborted) {
      showEnded(taskView, 'cancelled', 'you cancelled the task.')
      ui.result.append(el('p', 'refused', 'You cancelled the task.'))
    } else if (error instanceof TaskEndedError) {
      // cancelled elsewhere, gone (expired, or the server forgot it), or out of time
      showEnded(taskView, error.reason === 'cancelled' ? 'cancelled' : 'failed', error.message)
      ui.result.append(el('p', error.reason === 'cancelled' ? 'refused' : 'error', error.message))
    }
    // a declined sampling form abandons the call, a declined question fails a prompt or resource: the
    // user's own choice, not a failure
    else if (error instanceof SamplingDeclinedError || (refused && error instanceof Error))
      ui.result.append(el('p', 'refused', error.message.replace(/[^.?!]$/, '$&.')))
    else showError(error)
  } finally {
    connectionSignal.removeEventListener('abort', follow)
    if (taskId !== undefined) forgetTask()
  }
}

/**
 * A 2025-era server's request, answered inside the call (see eras.ts): listed in the rounds view as it
 * arrives, with the answer once it went back.
 */
const serverRequests: ServerRequestView = {
  asked(ctx, request) {
    const li = el('li', 'server-request')
    li.append(el('strong', undefined, `Asked during ${ctx.method} ${ctx.target}`.trim()))
    const q = el('p', 'asked')
    const answer = el('span', 'answer', ' → waiting for the answer…')
    q.append(el('code', undefined, ctx.key), `: ${describeRequest(request)}`, answer)
    li.append(q)
    ui.rounds.append(li)
    return {
      answered: (result) => (answer.textContent = ` → ${JSON.stringify(result)}`),
      failed: (error) => (answer.textContent = ` → failed: ${errorText(error)}`),
    }
  },
}

/**
 * A tool's result. An error result after the user declined or cancelled a question in this call is the
 * user's own answer (e.g. "The user declined: …"), shown neutrally, not as a failure.
 */
function renderToolResult(result: CallToolResult): void {
  const kind = !result.isError ? 'content' : refused ? 'content refused' : 'content error'
  if (result.isError)
    ui.result.append(
      refused
        ? el('p', 'refused', `You ${refused === 'decline' ? 'declined' : 'cancelled'} a question, so the tool stopped:`)
        : el('p', 'error', 'The tool reported an error:'),
    )
  for (const block of result.content) {
    ui.result.append(el('pre', kind, block.type === 'text' ? block.text : JSON.stringify(block, null, 2)))
  }
  if (result.structuredContent !== undefined)
    ui.result.append(el('pre', 'structured', JSON.stringify(result.structuredContent, null, 2)))
}

function renderPromptResult(result: GetPromptResult): void {
  for (const message of result.messages) {
    const content = message.content
    ui.result.append(
      el('pre', 'content', `${message.role}: ${content.type === 'text' ? content.text : JSON.stringify(content)}`),
    )
  }
}

function renderResourceResult(result: ReadResourceResult): void {
  for (const contents of result.contents) {
    const text =
      typeof contents.text === 'string'
        ? contents.text
        : `(${contents.mimeType ?? 'binary'}, ${String(contents.blob).length} base64 chars)`
    ui.result.append(el('pre', 'content', text))
  }
}

function showError(error: unknown): void {
  ui.result.append(el('p', 'error', errorText(error)))
}

// ------------------------------------------------------------------ start

const style = document.createElement('style')
style.textContent = DEFAULT_STYLESHEET // the optional look of edge-mcp/browser's forms
document.head.append(style)

const initial = new URLSearchParams(location.search).get('endpoint') ?? new URL('/mcp', location.href).href
ui.endpoint.value = initial
ui.connect.addEventListener('submit', (event) => {
  event.preventDefault()
  void connect(ui.endpoint.value)
})
void connect(initial)
