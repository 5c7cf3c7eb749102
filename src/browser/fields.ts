/**
 * The fields of an elicitation form, one builder per `PrimitiveSchemaDefinition` kind (spec:
 * client/elicitation.mdx): multi-select checkboxes, a boolean checkbox, a single-select `<select>`, a
 * number input, and a text input (plain or with format email, uri, date, date-time). Each returns its
 * wrapper node and how to read (and check) its value.
 * @module
 */
import { FULL_DATE, toLocalInput, toRfc3339, toUri } from './form-values.ts'
import { el, newId, type Env } from './host.ts'
import { fill } from './strings.ts'

/** A value a field sends: its JSON type follows the schema's. */
export type Value = string | number | boolean | string[]
/** A field's reading: the value to send, a message to show, or `null` to leave the key out. */
export type Read = { value: Value } | { error: string } | null
/** A property schema of `requestedSchema` (untrusted JSON: every keyword is checked before use). */
export type Schema = Record<string, unknown>

/** One rendered form field: its element and how to read (and check) the value the user entered. */
export interface Field {
  /** The value to send, a message to show, or `null` to leave the key out. */
  read: () => Read
  /** Where the message goes (`mcp-error`, referenced by `aria-describedby`). */
  error: HTMLElement
  /** What gets `aria-invalid` and focus when invalid. */
  control: HTMLElement
}

/** What every kind of field shares: ids, title, required mark, description and error message nodes. */
interface Frame {
  env: Env
  name: string
  /** The control's id; the description's and error's ids derive from it. */
  id: string
  required: boolean
  error: HTMLElement
  /** The control's `aria-describedby`: the description (when there is one), then the error. */
  describedBy: string
  /** Append the title, and the required mark when required, to `node`. */
  labelText: <E extends HTMLElement>(node: E) => E
  /** The nodes after the control: the description (when there is one), then the error. */
  tail: () => HTMLElement[]
}

/** One field: its wrapper node (`mcp-field`) and how to read it. */
export function buildField(env: Env, name: string, schema: Schema, required: boolean): [HTMLElement, Field] {
  const type = schema.type
  // a checkbox always answers (true or false): a required mark would only say, wrongly, that it must be ticked
  const frame = fieldFrame(env, name, schema, required && type !== 'boolean')
  const listed = choices(schema)
  if (type === 'array') return multiSelectField(frame, schema, listed ?? [])
  if (type === 'boolean') return booleanField(frame, schema)
  if (type === 'string' && listed) return selectField(frame, schema, listed)
  if (type === 'number' || type === 'integer') return numberField(frame, schema, type)
  return textField(frame, schema)
}

function fieldFrame(env: Env, name: string, schema: Schema, required: boolean): Frame {
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
  return { env, name, id, required, error, describedBy, labelText, tail }
}

/** `type: "array"`: a `<fieldset>` of checkboxes, with minItems / maxItems. */
function multiSelectField(frame: Frame, schema: Schema, options: [string, string][]): [HTMLElement, Field] {
  const { doc, strings } = frame.env
  const { id, required, error } = frame
  const group = el(doc, 'fieldset', 'mcp-field mcp-field-multi')
  group.dataset.name = frame.name
  group.append(frame.labelText(el(doc, 'legend', 'mcp-label')))
  // a group cannot be `required`: say it in its description (a hidden node still describes)
  const requiredNote = required ? el(doc, 'span', 'mcp-required-note', strings.required) : undefined
  if (requiredNote) {
    requiredNote.id = `${id}-required`
    requiredNote.hidden = true
    group.append(requiredNote)
  }
  group.setAttribute('aria-describedby', [requiredNote?.id ?? '', frame.describedBy].filter(Boolean).join(' '))
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
  group.append(list, ...frame.tail())
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

/** The `mcp-field` wrapper of a single-control field, and its `<label>` for the control. */
function labelled(frame: Frame): { wrapper: HTMLElement; label: HTMLLabelElement } {
  const { doc } = frame.env
  const wrapper = el(doc, 'div', 'mcp-field')
  wrapper.dataset.name = frame.name
  const label = frame.labelText(el(doc, 'label', 'mcp-label'))
  label.htmlFor = frame.id
  return { wrapper, label }
}

/** `type: "boolean"`: one checkbox, always sent (so never marked required: unticked is an answer too). */
function booleanField(frame: Frame, schema: Schema): [HTMLElement, Field] {
  const { wrapper, label } = labelled(frame)
  wrapper.classList.add('mcp-field-boolean')
  const box = el(frame.env.doc, 'input')
  box.type = 'checkbox'
  box.id = frame.id
  box.checked = schema.default === true
  box.setAttribute('aria-describedby', frame.describedBy)
  wrapper.append(box, label, ...frame.tail())
  return [wrapper, { read: () => ({ value: box.checked }), error: frame.error, control: box }]
}

/** `type: "string"` with choices (`enum`, titled `oneOf`, legacy `enumNames`): a `<select>`. */
function selectField(frame: Frame, schema: Schema, options: [string, string][]): [HTMLElement, Field] {
  const { doc, strings } = frame.env
  const { wrapper, label } = labelled(frame)
  const select = el(doc, 'select')
  select.id = frame.id
  select.required = frame.required
  select.setAttribute('aria-describedby', frame.describedBy)
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
  wrapper.append(label, select, ...frame.tail())
  const read = (): Read =>
    select.selectedIndex < 0 || placeholder?.selected
      ? frame.required
        ? { error: strings.requiredField }
        : null
      : { value: select.value }
  return [wrapper, { read, error: frame.error, control: select }]
}

/** The `<input>` of a number or text field, labelled and described, in its wrapper. */
function inputField(frame: Frame): { wrapper: HTMLElement; input: HTMLInputElement } {
  const { wrapper, label } = labelled(frame)
  const input = el(frame.env.doc, 'input')
  input.id = frame.id
  input.required = frame.required
  input.setAttribute('aria-describedby', frame.describedBy)
  wrapper.append(label, input, ...frame.tail())
  return { wrapper, input }
}

/** `type: "number"` or `"integer"`: a number input with minimum / maximum (and `multipleOf` as its step). */
function numberField(frame: Frame, schema: Schema, type: 'number' | 'integer'): [HTMLElement, Field] {
  const { strings } = frame.env
  const { wrapper, input } = inputField(frame)
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
    if (input.value === '') return frame.required ? { error: strings.requiredField } : null
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
  return [wrapper, { read, error: frame.error, control: input }]
}

/** The input type of each string `format`; any other format is a plain text input. */
const INPUT_TYPES: ReadonlyMap<unknown, string> = new Map([
  ['email', 'email'],
  ['uri', 'url'],
  ['date', 'date'],
  ['date-time', 'datetime-local'],
])

/** `type: "string"` (and anything unrecognised): a text input with min/maxLength and format. */
function textField(frame: Frame, schema: Schema): [HTMLElement, Field] {
  const { strings } = frame.env
  const { wrapper, input } = inputField(frame)
  const format = schema.format
  input.type = INPUT_TYPES.get(format) ?? 'text'
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
    if (raw === '' && schema.default !== '') return frame.required ? { error: strings.requiredField } : null
    if (input.validity.typeMismatch) return { error: formatError }
    // what is sent, in the format's syntax (the lengths below are checked on it)
    const value = sentValue(format, raw)
    if (value === undefined) return { error: formatError }
    const length = [...value].length
    if (minLength !== undefined && length < minLength) return { error: fill(strings.tooShort, { min: minLength }) }
    if (maxLength !== undefined && length > maxLength) return { error: fill(strings.tooLong, { max: maxLength }) }
    return { value }
  }
  return [wrapper, { read, error: frame.error, control: input }]
}

/** A text input's value as sent for `format` (date-time as RFC 3339, uri as an RFC 3986 URI); undefined when invalid. */
function sentValue(format: unknown, raw: string): string | undefined {
  if (raw === '') return raw
  if (format === 'date-time') return toRfc3339(raw)
  if (format === 'uri') return toUri(raw)
  if (format === 'date' && !FULL_DATE.test(raw)) return undefined
  return raw
}

/** The `[value, label]` pairs of a single- or multi-select schema (maybe none); `undefined` when it lists no choices at all. */
function choices(schema: Schema): [string, string][] | undefined {
  const source = schema.type === 'array' && isObject(schema.items) ? schema.items : schema
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
    .map((v, i) => [v, typeof names[i] === 'string' ? names[i] : v])
}

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}
