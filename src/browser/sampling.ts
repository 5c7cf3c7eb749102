/**
 * Sampling and roots in the browser: a human-in-the-loop reply form, and a static roots provider
 * (spec: client/sampling.mdx, client/roots.mdx, 2026-07-28).
 * @module
 */
import type { RootsCallback, SamplingCallback } from '../client/options.ts'
import { SamplingDeclinedError } from '../client/errors.ts'
import type { CreateMessageResult, Root } from '../protocol/schemas/index.ts'
import { actions, el, envFor, formShell, inTurn, newId, present, type BrowserFormOptions } from './host.ts'
import { fill } from './strings.ts'

/**
 * A sampling callback where the user is the model: shows the system prompt and every message (text as
 * text; other content as `strings.otherContent`), and the user writes the reply. Answers
 * `{role:"assistant", content:{type:"text", text}, model: options.model ?? "human", stopReason:"endTurn"}`.
 * Shares the one-at-a-time queue of its container with the elicitation handler.
 * @throws SamplingDeclinedError (as a rejection) on Decline, Escape, or a round already cancelled.
 * @throws the signal's reason when `ctx.signal` aborts (the form goes away).
 */
export function createSamplingHandler(options: BrowserFormOptions = {}): SamplingCallback {
  return async (params, ctx) => {
    const env = envFor(options, ctx)
    const { doc, strings } = env
    return inTurn<CreateMessageResult>(
      env,
      (progress) =>
        present<CreateMessageResult>(env, (finish) => {
          const form = formShell(env, 'mcp-sampling', strings.samplingTitle, progress)
          if (typeof params.systemPrompt === 'string' && params.systemPrompt !== '') {
            const system = el(doc, 'p', 'mcp-system')
            system.append(
              el(doc, 'span', 'mcp-role', strings.systemPrompt),
              el(doc, 'span', 'mcp-text', params.systemPrompt),
            )
            form.append(system)
          }
          const list = el(doc, 'ol', 'mcp-messages')
          for (const message of params.messages ?? []) {
            const item = el(doc, 'li', 'mcp-turn')
            item.dataset.role = message.role
            item.append(
              el(doc, 'span', 'mcp-role', message.role === 'assistant' ? strings.roleAssistant : strings.roleUser),
            )
            for (const block of Array.isArray(message.content) ? message.content : [message.content]) {
              const b = block as { type: string; text?: unknown; mimeType?: unknown }
              item.append(
                b.type === 'text' && typeof b.text === 'string'
                  ? el(doc, 'p', 'mcp-text', b.text)
                  : el(doc, 'p', 'mcp-other', otherText(strings.otherContent, b.type, b.mimeType)),
              )
            }
            list.append(item)
          }
          const field = el(doc, 'div', 'mcp-field')
          const id = newId()
          const label = el(doc, 'label', 'mcp-label', strings.reply)
          label.htmlFor = id
          const reply = el(doc, 'textarea', 'mcp-reply')
          reply.id = id
          reply.required = true
          const error = el(doc, 'p', 'mcp-error')
          error.id = `${id}-error`
          error.setAttribute('aria-live', 'polite')
          reply.setAttribute('aria-describedby', error.id)
          field.append(label, reply, error)
          const decline = () => finish(false, new SamplingDeclinedError())
          form.append(list, field, actions(env, { submit: strings.send, decline }))
          form.addEventListener('submit', (event) => {
            event.preventDefault()
            if (reply.value.trim() === '') {
              error.textContent = strings.requiredField
              reply.setAttribute('aria-invalid', 'true')
              reply.focus()
              return
            }
            finish(true, {
              role: 'assistant',
              content: { type: 'text', text: reply.value },
              model: options.model ?? 'human',
              stopReason: 'endTurn',
            })
          })
          return { form, focus: reply, dismiss: decline }
        }),
      () => {
        throw new SamplingDeclinedError('The user cancelled this round')
      },
    )
  }
}

/** The stand-in for a non-text block; an absent `{mimeType}` leaves no stray space (`[tool_use]`). */
function otherText(template: string, type: string, mimeType: unknown): string {
  return fill(template, { type, mimeType: typeof mimeType === 'string' ? mimeType : '' })
    .replace(/\s+([\])}])/g, '$1')
    .trim()
}

/**
 * A roots callback answering the same list every time (copied, so callers cannot change it later).
 * @throws TypeError when a root's `uri` is not a `file://` URI (spec: client/roots.mdx, Root).
 */
export function staticRoots(roots: Root[]): RootsCallback {
  for (const root of roots) {
    if (typeof root.uri !== 'string' || !root.uri.startsWith('file://'))
      throw new TypeError(`A root's uri must be a file:// URI, got ${JSON.stringify(root.uri)}`)
  }
  const copy = structuredClone(roots)
  return () => ({ roots: structuredClone(copy) })
}
