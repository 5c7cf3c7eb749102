/**
 * The host's own consent for what an App asks to do outside its frame (ext-apps apps.mdx `ui/open-link`,
 * `ui/message`): a modal `<dialog>` with the look, strings and keyboard of the other `edge-mcp/browser`
 * views — labelled by its question, described by what is asked (a link as URL elicitation shows one: host
 * emphasised, warnings), focus on Deny (an App picks the moment it asks: a key the user is pressing
 * in it must not allow) and back afterwards, Escape or closing denies.
 * @module
 */
import { actions, el, envFor, formShell, newId, present, urlLine, type View } from '../host.ts'
import type { BrowserStrings } from '../strings.ts'

/** What an App asks the user to allow: `text` is the URL to open, or the message's text. */
export interface AppConsentQuestion {
  kind: 'open-link' | 'message'
  text: string
}

/**
 * Ask the user, in a modal `<dialog class="mcp-dialog">` of `doc`; resolves `true` for Allow, `false` for
 * Deny, Escape or the dialog closed, and `false` when `signal` aborts.
 */
export function askConsent(
  question: AppConsentQuestion,
  app: string,
  doc: Document,
  strings: Partial<BrowserStrings> | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  const ctx = { key: question.kind, method: `ui/${question.kind}`, target: app, signal }
  const env = envFor({ document: doc, serverName: app, ...(strings ? { strings } : {}) }, ctx)
  const s = env.strings
  const link = question.kind === 'open-link'
  return present<boolean>(env, (finish): View => {
    const form = formShell(env, 'mcp-app-consent', link ? s.appOpenLink : s.appMessage, '')
    // a link as URL elicitation shows one: its host emphasised, with the warnings it deserves
    const { shown, warnings } = link
      ? urlLine(env, question.text)
      : { shown: el(doc, 'p', 'mcp-text', question.text), warnings: [] }
    const parts = [shown, ...warnings.map((text) => el(doc, 'p', 'mcp-warning', text))]
    for (const part of parts) part.id = newId()
    form.setAttribute('aria-describedby', [form.getAttribute('aria-describedby'), ...parts.map((p) => p.id)].join(' '))
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      finish(true, true)
    })
    const deny = () => finish(true, false)
    const row = actions(env, { submit: s.appAllow, decline: deny })
    form.append(...parts, row)
    // focus on Deny: keys the user was pressing in the App (which asks at a moment of its choosing) deny
    return { form, focus: row.querySelector<HTMLElement>('.mcp-decline'), dismiss: deny }
  }).catch(() => false)
}
