/**
 * Where and when a form is shown: one at a time per container (or per document for the default modal
 * `<dialog>`), the requests of one input-required round in sequence, a cancel ending the whole round;
 * Escape, removal and abort dismiss; focus goes to the first field and back afterwards.
 * @module
 */
import { raceAbort } from '../client/abort.ts'
import type { InputContext } from '../client/options.ts'
import { DEFAULT_STRINGS, fill, type BrowserStrings } from './strings.ts'

/** Options shared by every handler of `edge-mcp/browser`. */
export interface BrowserFormOptions {
  /** Render the form into this element. Default: a native modal `<dialog>` (`showModal()`) appended to `document.body`. */
  container?: HTMLElement
  /** Which server is asking, shown above the question (a string, or computed from the request's context). */
  serverName?: string | ((ctx: InputContext) => string)
  /** Replacements for any of {@link DEFAULT_STRINGS} (i18n). */
  strings?: Partial<BrowserStrings>
  /** The document to render into. Default: the container's, else the global `document`. */
  document?: Document
  /** The `model` name a human-written sampling reply reports. Default `"human"`. */
  model?: string
}

/** The resolved options a view is built with. */
export interface Env {
  doc: Document
  strings: BrowserStrings
  options: BrowserFormOptions
  ctx: InputContext
}

/** What a view hands to {@link present}: its form, what to focus first, and what Escape / removal answers. */
export interface View {
  form: HTMLFormElement
  focus: HTMLElement | null
  /** Called on Escape, on the form's removal and on the dialog being closed from outside. */
  dismiss: () => void
}

/**
 * Settles a shown view: `finish(true, value)` resolves the handler's promise with `value`;
 * `finish(false, reason)` rejects it with `reason` (the abort reason, or e.g. a `SamplingDeclinedError`).
 */
export interface Finish<T> {
  (ok: true, value: T): void
  (ok: false, reason: unknown): void
}

/** Rounds (identified by their shared `ctx.signal`) in which the user cancelled: the rest answer cancel unseen. */
export const cancelledRounds = new WeakSet<AbortSignal>()
const roundCounts = new WeakMap<AbortSignal, { total: number; shown: number }>()
const turns = new WeakMap<object, Promise<void>>()
let idCounter = 0

/** A document-unique id for `for` / `aria-describedby`. */
export function newId(): string {
  return `mcp-${++idCounter}`
}

/** Create an element with a class and (server or local) text, always through `textContent`. */
export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag)
  if (className) node.className = className
  if (text !== undefined) node.textContent = text
  return node
}

/** Resolve the options of a handler call. @throws TypeError when there is no document to render into. */
export function envFor(options: BrowserFormOptions, ctx: InputContext): Env {
  const doc = options.document ?? options.container?.ownerDocument ?? (globalThis as { document?: Document }).document
  if (!doc) throw new TypeError('edge-mcp/browser needs a document: pass options.document or options.container')
  return { doc, strings: { ...DEFAULT_STRINGS, ...options.strings }, options, ctx }
}

/** The form's header: who asks (`mcp-origin`) and, in a multi-question round, `mcp-progress`. */
export function header(env: Env, progress: string): HTMLElement[] {
  const { doc, strings, options, ctx } = env
  const name = typeof options.serverName === 'function' ? options.serverName(ctx) : options.serverName
  const out: HTMLElement[] = [
    el(doc, 'p', 'mcp-origin', fill(strings.origin, { server: name ?? strings.unknownServer, target: ctx.target })),
  ]
  if (progress) out.push(el(doc, 'p', 'mcp-progress', progress))
  return out
}

/**
 * Run `show` when it is this request's turn in `env`'s container (or document), one view at a time, in
 * call order. `show` gets the progress text (`Question 2 of 3` when the round asked several). When the
 * round was cancelled meanwhile, `skipped()` answers instead; an abort while waiting rejects with its reason.
 */
export async function inTurn<T>(env: Env, show: (progress: string) => Promise<T>, skipped: () => T): Promise<T> {
  const round = env.ctx.signal
  const count = roundCounts.get(round) ?? { total: 0, shown: 0 }
  count.total++
  roundCounts.set(round, count)
  const key: object = env.options.container ?? env.doc
  const previous = turns.get(key) ?? Promise.resolve()
  let release!: () => void
  const mine = new Promise<void>((resolve) => (release = resolve))
  turns.set(
    key,
    previous.then(() => mine),
  )
  try {
    await raceAbort(previous, round) // an abort while waiting rejects with its reason, unchanged
    round.throwIfAborted()
    if (cancelledRounds.has(round)) return skipped()
    count.shown++
    return await show(count.total > 1 ? fill(env.strings.progress, { index: count.shown, total: count.total }) : '')
  } finally {
    release()
  }
}

/**
 * Show a view until it finishes: in `env.options.container`, or in a modal `<dialog class="mcp-dialog">`
 * appended to `document.body`. Focus moves to `view.focus` and returns to the previously focused element
 * afterwards. Escape, removing the form, or closing the dialog calls `view.dismiss`; `ctx.signal`
 * aborting removes the view and rejects with the signal's reason.
 */
export function present<T>(env: Env, render: (finish: Finish<T>) => View): Promise<T> {
  const { doc, ctx, options } = env
  return new Promise<T>((resolve, reject) => {
    ctx.signal.throwIfAborted() // thrown in the executor: rejects with the reason, unchanged
    const previous = doc.activeElement
    let done = false
    let dialog: HTMLDialogElement | undefined
    // eslint-disable-next-line prefer-const -- `finish` reads it and may run before it is assigned below; a const would be in its temporal dead zone then
    let observer: MutationObserver | undefined
    const finish: Finish<T> = (ok: boolean, value: unknown) => {
      if (done) return
      done = true
      ctx.signal.removeEventListener('abort', onAbort)
      observer?.disconnect()
      if (dialog) {
        if (dialog.open) dialog.close()
        dialog.remove()
      } else view.form.remove()
      if (previous && previous !== doc.body && previous.isConnected) (previous as HTMLElement).focus?.()
      if (ok) resolve(value as T)
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rejects with the reason finish(false, reason) was given (an abort reason: any value), unchanged
      else reject(value)
    }
    const onAbort = () => finish(false, ctx.signal.reason)
    const view = render(finish)
    const dismiss = () => {
      if (!done) view.dismiss()
    }
    view.form.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return
      event.preventDefault()
      dismiss()
    })
    if (options.container) options.container.append(view.form)
    else {
      dialog = el(doc, 'dialog', 'mcp-dialog')
      // the dialog is announced with its name and description: the question, who asks, and (URL mode) the URL
      for (const attribute of ['aria-labelledby', 'aria-describedby']) {
        const ids = view.form.getAttribute(attribute)
        if (ids) dialog.setAttribute(attribute, ids)
      }
      dialog.append(view.form)
      dialog.addEventListener('cancel', (event) => {
        event.preventDefault()
        dismiss()
      })
      dialog.addEventListener('close', dismiss)
      doc.body.append(dialog)
      dialog.showModal()
    }
    ctx.signal.addEventListener('abort', onAbort, { once: true })
    observer = new (doc.defaultView ?? globalThis).MutationObserver(() => {
      if (!view.form.isConnected) dismiss()
    })
    observer.observe(doc, { childList: true, subtree: true })
    view.focus?.focus()
  })
}

/**
 * The Submit / Decline / Cancel row (`mcp-actions`); `undefined` labels are left out. With both Decline
 * and Cancel, a line (`mcp-actions-hint`, the `declineOrCancel` string) tells them apart and describes both.
 */
export function actions(
  env: Env,
  buttons: { submit?: string; decline?: () => void; cancel?: () => void; submitClass?: string },
): HTMLElement {
  const { doc, strings } = env
  const row = el(env.doc, 'div', 'mcp-actions')
  if (buttons.submit !== undefined) {
    const submit = el(doc, 'button', buttons.submitClass ?? 'mcp-submit', buttons.submit)
    submit.type = 'submit'
    row.append(submit)
  }
  const hint =
    buttons.decline && buttons.cancel && strings.declineOrCancel
      ? el(doc, 'p', 'mcp-actions-hint', strings.declineOrCancel)
      : undefined
  if (hint) hint.id = newId()
  for (const [label, className, onClick] of [
    [strings.decline, 'mcp-decline', buttons.decline],
    [strings.cancel, 'mcp-cancel', buttons.cancel],
  ] as const) {
    if (!onClick) continue
    const button = el(doc, 'button', className, label)
    button.type = 'button'
    if (hint) button.setAttribute('aria-describedby', hint.id)
    button.addEventListener('click', onClick)
    row.append(button)
  }
  if (hint) row.append(hint)
  return row
}

/**
 * A `<form class="mcp-form {kind}">` labelled by its `<h2 class="mcp-message">` and described by its header
 * (who asks, the progress), without native validation bubbles.
 */
export function formShell(env: Env, kind: string, message: string, progress: string): HTMLFormElement {
  const form = el(env.doc, 'form', `mcp-form ${kind}`)
  form.noValidate = true
  const heading = el(env.doc, 'h2', 'mcp-message', message)
  heading.id = newId()
  form.setAttribute('aria-labelledby', heading.id)
  const head = header(env, progress)
  for (const part of head) part.id = newId()
  form.setAttribute('aria-describedby', head.map((part) => part.id).join(' '))
  form.append(...head, heading)
  return form
}

const LOCAL_HOSTS = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i

/**
 * A URL for the user to judge (`<p class="mcp-url">`): its host emphasised (`mcp-url-host`), and the
 * warnings it deserves — plain HTTP off loopback, Punycode, userinfo before the host, not a web URL (then
 * `url` is undefined and the text is shown as is).
 */
export function urlLine(env: Env, text: string): { shown: HTMLElement; warnings: string[]; url: URL | undefined } {
  const { doc, strings } = env
  const shown = el(doc, 'p', 'mcp-url')
  let url: URL | undefined
  try {
    url = new URL(text)
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    shown.textContent = text
    return { shown, warnings: [strings.unsupportedUrl], url: undefined }
  }
  const warnings: string[] = []
  // userinfo is present when either part is (`https://:secret@host/` has an empty username)
  const userinfo = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''
  const prefix = `${url.protocol}//${userinfo}`
  shown.append(
    el(doc, 'span', 'mcp-url-prefix', prefix),
    el(doc, 'strong', 'mcp-url-host', url.hostname),
    el(doc, 'span', 'mcp-url-rest', url.href.slice(prefix.length + url.hostname.length)),
  )
  if (url.protocol === 'http:' && !LOCAL_HOSTS.test(url.hostname)) warnings.push(strings.insecureUrl)
  // spec (client/elicitation.mdx, URL mode security): warn for ambiguous or suspicious URLs, e.g. Punycode
  if (url.hostname.split('.').some((label) => label.startsWith('xn--'))) warnings.push(strings.punycodeUrl)
  if (userinfo) warnings.push(strings.userinfoUrl)
  return { shown, warnings, url }
}
