/**
 * Elicitation in the browser: form mode as a native `<form>` built from the flat `requestedSchema`, URL
 * mode as a consent view (spec: client/elicitation.mdx, 2026-07-28).
 * @module
 */
import type { ElicitationCallback } from '../client/options.ts'
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from '../protocol/schemas/index.ts'
import {
  actions,
  cancelledRounds,
  el,
  envFor,
  formShell,
  inTurn,
  newId,
  present,
  type BrowserFormOptions,
  type Env,
  type Finish,
  urlLine,
  type View,
} from './host.ts'
import { buildField, isObject, type Field, type Read, type Schema, type Value } from './fields.ts'

/**
 * An elicitation callback that shows each request to the user: form mode as a native HTML form (every
 * `PrimitiveSchemaDefinition`: strings with min/maxLength and formats email, uri, date, date-time; number
 * and integer with minimum/maximum; boolean; single-select `enum`, titled `oneOf`, legacy `enumNames`;
 * multi-select with minItems/maxItems), URL mode as a consent view that opens the URL only on Accept
 * (`window.open(url, '_blank', 'noopener,noreferrer')`).
 *
 * Answers `{action:"accept", content}` (content converted to the schema's JSON types; date-time as
 * RFC 3339 with the local offset), `{action:"decline"}`, or `{action:"cancel"}` (Cancel, Escape, the form
 * removed). Requests of one round are shown one after another; after a cancel, the round's remaining
 * requests answer `cancel` unseen. When `ctx.signal` aborts, the form goes away and the promise rejects
 * with the signal's reason.
 * @throws TypeError (as a rejection) when there is no document to render into.
 */
export function createElicitationHandler(options: BrowserFormOptions = {}): ElicitationCallback {
  return async (params, ctx) => {
    const env = envFor(options, ctx)
    return inTurn<ElicitResult>(
      env,
      async (progress) => {
        const result = await present<ElicitResult>(env, (finish) =>
          params.mode === 'url' ? urlView(env, params, progress, finish) : formView(env, params, progress, finish),
        )
        if (result.action === 'cancel') cancelledRounds.add(ctx.signal)
        return result
      },
      () => ({ action: 'cancel' }),
    )
  }
}

/**
 * Form mode: one field per property of `requestedSchema` (see fields.ts); invalid fields are shown on
 * submit, then re-checked as they change; Submit accepts with the content read from every field.
 */
function formView(env: Env, params: ElicitRequestFormParams, progress: string, finish: Finish<ElicitResult>): View {
  const form = formShell(env, 'mcp-elicitation', params.message, progress)
  const schema = (params.requestedSchema ?? {}) as Schema
  const properties = (isObject(schema.properties) ? schema.properties : {}) as Record<string, Schema>
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  const fields = new Map<string, Field>()
  const box = el(env.doc, 'div', 'mcp-fields')
  for (const [name, prop] of Object.entries(properties)) {
    if (!isObject(prop)) continue
    const [node, field] = buildField(env, name, prop, required.has(name))
    fields.set(name, field)
    box.append(node)
  }
  form.append(box)
  const shown = new Set<Field>()
  const check = (field: Field): Read => {
    const read = field.read()
    const message = read && 'error' in read ? read.error : ''
    field.error.textContent = message
    if (message) {
      field.control.setAttribute('aria-invalid', 'true')
      shown.add(field)
    } else {
      field.control.removeAttribute('aria-invalid')
      shown.delete(field)
    }
    return read
  }
  const recheck = () => {
    for (const field of [...shown]) check(field)
  }
  form.addEventListener('input', recheck)
  form.addEventListener('change', recheck)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const content: Record<string, Value> = {}
    let firstInvalid: HTMLElement | undefined
    for (const [name, field] of fields) {
      const read = check(field)
      if (!read) continue
      if ('error' in read) firstInvalid ??= field.control
      else content[name] = read.value
    }
    if (firstInvalid) firstInvalid.focus()
    else finish(true, { action: 'accept', content })
  })
  const cancel = () => finish(true, { action: 'cancel' })
  form.append(actions(env, { submit: env.strings.submit, decline: () => finish(true, { action: 'decline' }), cancel }))
  const focus = form.querySelector<HTMLElement>('.mcp-fields input, .mcp-fields select, .mcp-submit')
  return { form, focus, dismiss: cancel }
}

/**
 * URL mode: the URL shown with its host emphasised and warnings (see {@link urlLine}); Open opens it in a
 * new tab and accepts.
 */
function urlView(env: Env, params: ElicitRequestURLParams, progress: string, finish: Finish<ElicitResult>): View {
  const { doc, strings } = env
  const form = formShell(env, 'mcp-url-consent', params.message, progress)
  const intro = el(doc, 'p', 'mcp-url-intro', strings.urlIntro)
  const { shown, warnings, url } = urlLine(env, params.url)
  const web = url !== undefined
  const parts: HTMLElement[] = [intro, shown, ...warnings.map((text) => el(doc, 'p', 'mcp-warning', text))]
  for (const part of parts) part.id = newId()
  form.setAttribute('aria-describedby', [form.getAttribute('aria-describedby'), ...parts.map((p) => p.id)].join(' '))
  form.append(...parts)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (!web) return
    doc.defaultView?.open(url.href, '_blank', 'noopener,noreferrer')
    finish(true, { action: 'accept' })
  })
  const cancel = () => finish(true, { action: 'cancel' })
  const row = actions(env, {
    ...(web ? { submit: strings.open } : {}),
    submitClass: 'mcp-submit mcp-open',
    decline: () => finish(true, { action: 'decline' }),
    cancel,
  })
  form.append(row)
  return { form, focus: row.querySelector<HTMLElement>('button'), dismiss: cancel }
}
