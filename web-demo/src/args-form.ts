/**
 * An arguments form built from a tool's `inputSchema` (JSON Schema, an object of properties): one native
 * field per property, with the schema's constraints as HTML constraints, and the values read back as
 * the schema's JSON types. Server text (titles, descriptions) goes through `textContent` only.
 *
 * | property schema                                   | field                                  | value sent            |
 * | ------------------------------------------------- | -------------------------------------- | --------------------- |
 * | `enum`, or `oneOf` / `anyOf` of `{ const, title }` | `<select>` (titles as labels)          | the chosen `const`     |
 * | `boolean`                                         | checkbox                               | `true` / `false`      |
 * | `integer` / `number` (`minimum`, `maximum`)       | `<input type=number>` (step 1 / any)   | a JSON number         |
 * | `string` (`minLength`, `maxLength`, `format`)     | text, email, url, date or datetime     | the string            |
 * | anything else (arrays, objects)                   | `<textarea>` holding JSON              | the parsed JSON       |
 *
 * An optional field left empty is omitted; a required one is marked (`*`) and `required` (a checkbox,
 * which always sends a value, is neither).
 * @module
 */

/** The part of JSON Schema the form understands. */
export interface PropertySchema {
  type?: string | string[]
  title?: string
  description?: string
  default?: unknown
  enum?: unknown[]
  enumNames?: string[]
  oneOf?: Array<{ const?: unknown; title?: string }>
  anyOf?: Array<{ const?: unknown; title?: string }>
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  format?: string
}

/** A tool's `inputSchema`. */
export interface ObjectSchema {
  properties?: Record<string, PropertySchema>
  required?: string[]
}

/** The fields of {@link argumentsForm} and how to read them. */
export interface ArgumentsForm {
  /** The fields, to place inside a `<form>` (one `<div class="field">` per property). */
  fields: HTMLElement[]
  /**
   * The arguments as JSON values, after the browser's constraint validation passed.
   * @throws Error naming the field when a JSON field does not parse.
   */
  read(): Record<string, unknown>
}

const INPUT_TYPE_OF_FORMAT: Readonly<Record<string, string>> = {
  email: 'email',
  uri: 'url',
  date: 'date',
  'date-time': 'datetime-local',
}

function typeOf(schema: PropertySchema): string | undefined {
  return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
}

/** The choices of an enum-like property: `[value, label]`, or undefined when it is not one. */
function choicesOf(schema: PropertySchema): Array<[unknown, string]> | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.map((value, i) => [value, schema.enumNames?.[i] ?? String(value)])
  const options = schema.oneOf ?? schema.anyOf
  if (Array.isArray(options) && options.length && options.every((o) => o && 'const' in o))
    return options.map((o) => [o.const, o.title ?? String(o.const)])
  return undefined
}

/**
 * Build the fields for `schema`'s properties; element ids start with `idPrefix`.
 * @param schema a tool's `inputSchema` (or a prompt's arguments turned into one)
 */
export function argumentsForm(schema: ObjectSchema, idPrefix: string): ArgumentsForm {
  const required = new Set(schema.required ?? [])
  const readers: Array<() => [string, unknown] | undefined> = []
  const fields = Object.entries(schema.properties ?? {}).map(([name, prop], i) => {
    const id = `${idPrefix}-${i}`
    const field = document.createElement('div')
    field.className = 'field'
    const label = document.createElement('label')
    label.htmlFor = id
    label.textContent = prop.title ?? name
    const isRequired = required.has(name)
    // a checkbox always sends true or false: marking it would only suggest it must be ticked
    if (isRequired && typeOf(prop) !== 'boolean') {
      const mark = document.createElement('span')
      mark.className = 'required'
      mark.textContent = ' *'
      mark.setAttribute('aria-hidden', 'true')
      label.append(mark)
    }
    field.append(label)

    const type = typeOf(prop)
    const choices = choicesOf(prop)
    let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
    if (choices) {
      const select = document.createElement('select')
      if (!isRequired || prop.default === undefined) select.append(new Option(isRequired ? 'Choose…' : '(none)', ''))
      choices.forEach(([value, text], k) => {
        const option = new Option(text, String(k), false, value === prop.default)
        select.append(option)
      })
      control = select
      readers.push(() => (select.value === '' ? undefined : [name, choices[Number(select.value)][0]]))
    } else if (type === 'boolean') {
      const box = document.createElement('input')
      box.type = 'checkbox'
      box.checked = prop.default === true
      control = box
      readers.push(() => [name, box.checked])
    } else if (type === 'integer' || type === 'number') {
      const input = document.createElement('input')
      input.type = 'number'
      input.step = type === 'integer' ? '1' : 'any'
      if (typeof prop.minimum === 'number') input.min = String(prop.minimum)
      if (typeof prop.maximum === 'number') input.max = String(prop.maximum)
      if (typeof prop.default === 'number') input.value = String(prop.default)
      control = input
      readers.push(() => (input.value === '' ? undefined : [name, input.valueAsNumber]))
    } else if (type === 'string') {
      const input = document.createElement('input')
      const inputType = (prop.format && INPUT_TYPE_OF_FORMAT[prop.format]) || 'text'
      input.type = inputType
      if (typeof prop.minLength === 'number') input.minLength = prop.minLength
      if (typeof prop.maxLength === 'number') input.maxLength = prop.maxLength
      if (typeof prop.default === 'string') input.value = prop.default
      control = input
      readers.push(() => {
        if (input.value === '') return undefined
        // datetime-local has no offset; the schema's date-time wants RFC 3339, so send it in UTC.
        return [name, inputType === 'datetime-local' ? new Date(input.value).toISOString() : input.value]
      })
    } else {
      const area = document.createElement('textarea')
      area.placeholder = 'JSON'
      if (prop.default !== undefined) area.value = JSON.stringify(prop.default)
      control = area
      readers.push(() => {
        if (area.value.trim() === '') return undefined
        try {
          return [name, JSON.parse(area.value) as unknown]
        } catch {
          throw new Error(`${prop.title ?? name}: not valid JSON`)
        }
      })
    }
    control.id = id
    control.name = name
    control.required = isRequired && !(control instanceof HTMLInputElement && control.type === 'checkbox')
    field.append(control)
    if (prop.description) {
      const help = document.createElement('small')
      help.id = `${id}-description`
      help.textContent = prop.description
      control.setAttribute('aria-describedby', help.id)
      field.append(help)
    }
    return field
  })
  return {
    fields,
    read: () => Object.fromEntries(readers.map((r) => r()).filter((entry) => entry !== undefined)),
  }
}
