/**
 * The web demo's small DOM pieces: elements built with `textContent` only, errors in words, and one
 * input-required round (or one server request) described for the rounds view.
 * @module
 */
import { NetworkError, type RoundInfo } from '../../src/client/index.ts'
import type { InputRequest } from '../../src/index.ts'

/** How many characters of a `requestState` the rounds view shows. */
const STATE_PREVIEW_CHARS = 16

/** `document.createElement` with a class and text (always `textContent`). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (className) node.className = className
  if (text !== undefined) node.textContent = text
  return node
}

/** An error in words: the message alone for a NetworkError (it says what happened) or a plain Error, else with its name. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  return error instanceof NetworkError || error.name === 'Error' ? error.message : `${error.name}: ${error.message}`
}

/** One round: what was asked, what went back, and the opaque state that travelled with it. */
export function roundItem(info: RoundInfo): HTMLLIElement {
  const li = el('li', 'round')
  li.append(el('strong', undefined, `Round ${info.round}`))
  const asked = Object.entries(info.inputRequests)
  const list = el('ul')
  if (asked.length === 0)
    list.append(el('li', undefined, 'No questions: a state-only round (the client waits, then retries).'))
  for (const [key, request] of asked) {
    const response = info.inputResponses?.[key]
    const q = el('li', 'asked')
    q.append(el('code', undefined, key), `: ${describeRequest(request)}`)
    if (response) q.append(el('span', 'answer', ` → ${JSON.stringify(response)}`))
    list.append(q)
  }
  li.append(list)
  const state = info.requestState
  li.append(
    el(
      'p',
      'round-state',
      state === undefined
        ? 'No requestState in this round.'
        : `requestState: ${state.length} chars, ${state.slice(0, STATE_PREVIEW_CHARS)}… — opaque to the client, sent back unchanged with the answers.`,
    ),
  )
  return li
}

/** What a server asked, in a few words (the question itself, for a form). */
export function describeRequest(request: InputRequest): string {
  switch (request.method) {
    case 'elicitation/create':
      return request.params.mode === 'url'
        ? `elicitation (URL): ${request.params.message} ${request.params.url}`
        : `elicitation (form): ${request.params.message}`
    case 'sampling/createMessage':
      return `sampling, ${request.params.messages.length} message(s)`
    case 'roots/list':
      return 'roots'
  }
}
