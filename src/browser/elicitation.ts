/**
 * Elicitation in the browser: form mode as a native `<form>` built from the flat `requestedSchema`, URL
 * mode as a consent view (spec: client/elicitation.mdx, 2026-07-28).
 * @module
 */
import type { ElicitationCallback } from '../client/options.ts'
import type { ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult } from '../protocol/schemas.ts'
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
  type View,
} from './host.ts'
import { fill } from './strings.ts'

type Value = string | number | boolean | string[]
type Read = { value: Value } | { error: string } | null
type Schema = Record<string, unknown>

interface Field {
  /** The value to send, a message to show, or `null` to leave the key out. */
  read: () => Read
  /** Where the message goes (`mcp-error`, referenced by `aria-describedby`). */
  error: HTMLElement
  /** What gets `aria-invalid` and focus when invalid. */
  control: HTMLElement
}

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
          params.mode === 'url'
            ? urlView(env, params as ElicitRequestURLParams, progress, finish)
            : formView(env, params as ElicitRequestFormParams, progress, finish),
        )
        if (result.action === 'cancel') cancelledRounds.add(ctx.signal)
        return result
      },
      () => ({ action: 'cancel' }),
    )
  }
}

function formView(
  env: Env,
  params: ElicitRequestFormParams,
  progress: string,
  finish: Finish<ElicitResult>,
): View<ElicitResult> {
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

/** One field: its wrapper node (`mcp-field`) and how to read it. */
function buildField(env: Env, name: string, schema: Schema, required: boolean): [HTMLElement, Field] {
  const { doc, strings } = env
  const id = newId()
  const title = typeof schema.title === 'string' ? schema.title : name
  const description = typeof schema.description === 'string' ? schema.description : undefined
  const error = el(doc, 'p', 'mcp-error')
  error.id = `${id}-error`
  error.setAttribute('aria-live', 'polite')
  const describedBy = [description !== undefined ? `${id}-description` : '', error.id].filter(Boolean).join(' ')
  const labelText = <E extends HTMLElement>(node: E): E => {
    node.append(el(doc, 'span', 'mcp-label-text', title))
    if (required) {
      const mark = el(doc, 'span', 'mcp-required', strings.requiredMark)
      mark.title = strings.required
      mark.setAttribute('aria-hidden', 'true')
      node.append(mark)
    }
    return node
  }
  const tail = (): HTMLElement[] => {
    const out: HTMLElement[] = []
    if (description !== undefined) {
      const p = el(doc, 'p', 'mcp-description', description)
      p.id = `${id}-description`
      out.push(p)
    }
    out.push(error)
    return out
  }
  const type = schema.type
  const listed = choices(schema)
  const options = listed ?? []

  if (type === 'array') {
    const group = el(doc, 'fieldset', 'mcp-field mcp-field-multi')
    group.dataset.name = name
    group.append(labelText(el(doc, 'legend', 'mcp-label')))
    // a group cannot be `required`: say it in its description (a hidden node still describes)
    const requiredNote = required ? el(doc, 'span', 'mcp-required-note', strings.required) : undefined
    if (requiredNote) {
      requiredNote.id = `${id}-required`
      requiredNote.hidden = true
      group.append(requiredNote)
    }
    group.setAttribute('aria-describedby', [requiredNote?.id ?? '', describedBy].filter(Boolean).join(' '))
    const defaults = Array.isArray(schema.default) ? (schema.default as unknown[]) : []
    const boxes: HTMLInputElement[] = []
    const list = el(doc, 'div', 'mcp-options')
    for (const [value, text] of options) {
      const label = el(doc, 'label', 'mcp-option')
      const box = el(doc, 'input')
      box.type = 'checkbox'
      box.value = value
      box.checked = defaults.includes(value)
      boxes.push(box)
      label.append(box, el(doc, 'span', 'mcp-option-text', text))
      list.append(label)
    }
    group.append(list, ...tail())
    const minItems = num(schema.minItems)
    const maxItems = num(schema.maxItems)
    const read = (): Read => {
      const chosen = boxes.filter((b) => b.checked).map((b) => b.value)
      if (chosen.length === 0) {
        if (required)
          return {
            error: minItems && minItems > 1 ? fill(strings.tooFewItems, { min: minItems }) : strings.requiredChoice,
          }
        return Array.isArray(schema.default) && schema.default.length === 0 ? { value: [] } : null
      }
      if (minItems !== undefined && chosen.length < minItems)
        return { error: fill(strings.tooFewItems, { min: minItems }) }
      if (maxItems !== undefined && chosen.length > maxItems)
        return { error: fill(strings.tooManyItems, { max: maxItems }) }
      return { value: chosen }
    }
    return [group, { read, error, control: boxes[0] ?? group }]
  }

  const wrapper = el(doc, 'div', 'mcp-field')
  wrapper.dataset.name = name
  const label = labelText(el(doc, 'label', 'mcp-label'))
  label.htmlFor = id

  if (type === 'boolean') {
    wrapper.classList.add('mcp-field-boolean')
    const box = el(doc, 'input')
    box.type = 'checkbox'
    box.id = id
    box.checked = schema.default === true
    box.setAttribute('aria-describedby', describedBy)
    wrapper.append(box, label, ...tail())
    return [wrapper, { read: () => ({ value: box.checked }), error, control: box }]
  }

  if (type === 'string' && listed) {
    const select = el(doc, 'select')
    select.id = id
    select.required = required
    select.setAttribute('aria-describedby', describedBy)
    const hasDefault = typeof schema.default === 'string' && options.some(([value]) => value === schema.default)
    // "nothing chosen" is this option, not the value "" (which an enum may list)
    const placeholder = hasDefault ? undefined : el(doc, 'option', undefined, strings.choose)
    if (placeholder) {
      placeholder.value = ''
      select.append(placeholder)
    }
    for (const [value, text] of options) {
      const option = el(doc, 'option', undefined, text)
      option.value = value
      option.selected = hasDefault && value === schema.default
      select.append(option)
    }
    wrapper.append(label, select, ...tail())
    const read = (): Read =>
      select.selectedIndex < 0 || placeholder?.selected
        ? required
          ? { error: strings.requiredField }
          : null
        : { value: select.value }
    return [wrapper, { read, error, control: select }]
  }

  const input = el(doc, 'input')
  input.id = id
  input.required = required
  input.setAttribute('aria-describedby', describedBy)
  wrapper.append(label, input, ...tail())

  if (type === 'number' || type === 'integer') {
    input.type = 'number'
    const minimum = num(schema.minimum)
    const maximum = num(schema.maximum)
    if (minimum !== undefined) input.min = String(minimum)
    if (maximum !== undefined) input.max = String(maximum)
    const step = num(schema.multipleOf)
    input.step = step !== undefined && step > 0 ? String(step) : type === 'integer' ? '1' : 'any'
    if (typeof schema.default === 'number') input.value = String(schema.default)
    const read = (): Read => {
      if (input.validity.badInput) return { error: strings.notNumber }
      if (input.value === '') return required ? { error: strings.requiredField } : null
      const n = Number(input.value)
      if (!Number.isFinite(n)) return { error: strings.notNumber }
      if (type === 'integer' && !Number.isInteger(n)) return { error: strings.notInteger }
      if (minimum !== undefined && n < minimum) return { error: fill(strings.tooSmall, { min: minimum }) }
      if (maximum !== undefined && n > maximum) return { error: fill(strings.tooLarge, { max: maximum }) }
      // `multipleOf` (beyond the spec's NumberSchema, but it sets the step, so it is kept): within float error
      if (step !== undefined && step > 0 && Math.abs(n / step - Math.round(n / step)) > 1e-9)
        return { error: fill(strings.notMultiple, { step }) }
      return { value: n }
    }
    return [wrapper, { read, error, control: input }]
  }

  const format = schema.format
  input.type =
    format === 'email'
      ? 'email'
      : format === 'uri'
        ? 'url'
        : format === 'date'
          ? 'date'
          : format === 'date-time'
            ? 'datetime-local'
            : 'text'
  if (format === 'date-time') input.step = '1'
  // RFC 3339 years have four digits; the browser's pickers go up to 275760
  if (format === 'date') input.max = '9999-12-31'
  if (format === 'date-time') input.max = '9999-12-31T23:59:59'
  const minLength = num(schema.minLength)
  const maxLength = num(schema.maxLength)
  // no native maxlength: it counts UTF-16 units (an emoji is 2) where JSON Schema counts characters
  if (minLength !== undefined) input.minLength = minLength
  if (typeof schema.default === 'string')
    input.value = format === 'date-time' ? toLocalInput(schema.default) : schema.default
  const formatError =
    format === 'email' ? strings.invalidEmail : format === 'uri' ? strings.invalidUri : strings.invalidDate
  const read = (): Read => {
    if (input.validity.badInput) return { error: formatError }
    const raw = input.value
    if (raw === '' && schema.default !== '') return required ? { error: strings.requiredField } : null
    if (input.validity.typeMismatch) return { error: formatError }
    // what is sent, in the format's syntax (the lengths below are checked on it)
    const value =
      raw === ''
        ? raw
        : format === 'date-time'
          ? toRfc3339(raw)
          : format === 'uri'
            ? toUri(raw)
            : format === 'date' && !FULL_DATE.test(raw)
              ? undefined
              : raw
    if (value === undefined) return { error: formatError }
    const length = [...value].length
    if (minLength !== undefined && length < minLength) return { error: fill(strings.tooShort, { min: minLength }) }
    if (maxLength !== undefined && length > maxLength) return { error: fill(strings.tooLong, { max: maxLength }) }
    return { value }
  }
  return [wrapper, { read, error, control: input }]
}

/** RFC 3339 `full-date` (a `date` input's value, four-digit years only). */
const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/

/** RFC 3986 URI characters: a scheme, then unreserved, reserved and percent-encoded characters only. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/

/**
 * An absolute URL as typed, as an RFC 3986 URI (`format: "uri"`): kept as it is when it already is one,
 * else as the browser serialises it (spaces and non-ASCII percent-encoded, the host in Punycode);
 * `undefined` when even that is not a URI.
 */
function toUri(raw: string): string | undefined {
  if (URI.test(raw)) return raw
  let href: string
  try {
    href = new URL(raw).href
  } catch {
    return undefined
  }
  return URI.test(href) ? href : undefined
}

/** The `[value, label]` pairs of a single- or multi-select schema (maybe none); `undefined` when it lists no choices at all. */
function choices(schema: Schema): [string, string][] | undefined {
  const source = schema.type === 'array' && isObject(schema.items) ? (schema.items as Schema) : schema
  const titled = Array.isArray(source.oneOf) ? source.oneOf : Array.isArray(source.anyOf) ? source.anyOf : undefined
  if (titled) {
    return titled
      .filter((o): o is { const: string; title?: unknown } => isObject(o) && typeof o.const === 'string')
      .map((o) => [o.const, typeof o.title === 'string' ? o.title : o.const])
  }
  if (!Array.isArray(source.enum)) return undefined
  const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : []
  return source.enum
    .filter((v): v is string => typeof v === 'string')
    .map((v, i) => [v, typeof names[i] === 'string' ? (names[i] as string) : v])
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** A `datetime-local` value (`YYYY-MM-DDTHH:MM[:SS]`, local time) as RFC 3339 with the local UTC offset at that instant. */
export function toRfc3339(local: string): string | undefined {
  const date = new Date(local)
  if (Number.isNaN(date.getTime()) || date.getFullYear() > 9999) return undefined
  const offset = -date.getTimezoneOffset()
  const sign = offset >= 0 ? '+' : '-'
  const abs = Math.abs(offset)
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  )
}

/** An RFC 3339 date-time as a `datetime-local` value in local time (empty when it does not parse). */
function toLocalInput(stamp: string): string {
  const date = new Date(stamp)
  if (Number.isNaN(date.getTime())) return ''
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

const LOCAL_HOSTS = /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i

function urlView(
  env: Env,
  params: ElicitRequestURLParams,
  progress: string,
  finish: Finish<ElicitResult>,
): View<ElicitResult> {
  const { doc, strings } = env
  const form = formShell(env, 'mcp-url-consent', params.message, progress)
  const intro = el(doc, 'p', 'mcp-url-intro', strings.urlIntro)
  const shown = el(doc, 'p', 'mcp-url')
  let url: URL | undefined
  try {
    url = new URL(params.url)
  } catch {
    url = undefined
  }
  const web = url !== undefined && (url.protocol === 'https:' || url.protocol === 'http:')
  const warnings: string[] = []
  if (url && web) {
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
  } else {
    shown.textContent = params.url
    warnings.push(strings.unsupportedUrl)
  }
  const parts: HTMLElement[] = [intro, shown, ...warnings.map((text) => el(doc, 'p', 'mcp-warning', text))]
  for (const part of parts) part.id = newId()
  form.setAttribute('aria-describedby', [form.getAttribute('aria-describedby'), ...parts.map((p) => p.id)].join(' '))
  form.append(...parts)
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (!web) return
    doc.defaultView?.open(url!.href, '_blank', 'noopener,noreferrer')
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
