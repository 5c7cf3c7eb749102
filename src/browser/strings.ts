/**
 * Every string the browser forms show that does not come from the server (buttons, validation messages,
 * labels), replaceable for i18n. `{name}` placeholders are filled in by {@link fill}.
 * @module
 */

/** The replaceable strings of `edge-mcp/browser`; pass a `Partial` as `strings` to override some. */
export interface BrowserStrings {
  /** Submit button of a form-mode elicitation. */
  submit: string
  /** Decline button (elicitation: `{action:"decline"}`; sampling: the call is abandoned). */
  decline: string
  /** Cancel button (`{action:"cancel"}`; Escape does the same). */
  cancel: string
  /** The line under Decline and Cancel that tells them apart (`''` leaves it out). */
  declineOrCancel: string
  /** Accept button of a URL-mode consent view (opens the URL). */
  open: string
  /** Send button of the sampling form. */
  send: string
  /** Who is asking: `{server}` (the `serverName` option, or `unknownServer`) and `{target}` (tool, prompt or URI). */
  origin: string
  /** `{server}` when no `serverName` option is given. */
  unknownServer: string
  /** Shown when one round asks several questions: `{index}` of `{total}` (1-based). */
  progress: string
  /** Tooltip of the required-field marker; also the description of a required multi-select group. */
  required: string
  /** The required-field marker itself (hidden from assistive technology: the control is `required`). */
  requiredMark: string
  /** First, empty option of a single-select list. */
  choose: string
  /** A required field left empty. */
  requiredField: string
  /** A required multi-select with nothing chosen. */
  requiredChoice: string
  /** `{min}` characters at least. */
  tooShort: string
  /** `{max}` characters at most. */
  tooLong: string
  /** Not an e-mail address (`format: "email"`). */
  invalidEmail: string
  /** Not an absolute URI (`format: "uri"`). */
  invalidUri: string
  /** Not a complete date (`format: "date"` / `"date-time"`). */
  invalidDate: string
  /** Not a number. */
  notNumber: string
  /** Not a whole number (`type: "integer"`). */
  notInteger: string
  /** Not a multiple of `{step}` (a number schema's `multipleOf`). */
  notMultiple: string
  /** Below `{min}`. */
  tooSmall: string
  /** Above `{max}`. */
  tooLarge: string
  /** Fewer than `{min}` items chosen. */
  tooFewItems: string
  /** More than `{max}` items chosen. */
  tooManyItems: string
  /** Above the address in a URL-mode consent view. */
  urlIntro: string
  /** Warning for an `http:` URL whose host is not localhost. */
  insecureUrl: string
  /** Shown instead of the Open button for a URL that is not `http:` / `https:`. */
  unsupportedUrl: string
  /** Warning for a host with a Punycode (`xn--`) label: international letters can imitate another name. */
  punycodeUrl: string
  /** Warning for a URL with a user name or password before the host (`https://bank.example@evil.example/`). */
  userinfoUrl: string
  /** Heading of the sampling form. */
  samplingTitle: string
  /** Label of the system prompt in the sampling form. */
  systemPrompt: string
  /** Role names in the sampling transcript. */
  roleUser: string
  roleAssistant: string
  /** Stand-in for a non-text content block: `{type}` (e.g. `image`) and `{mimeType}`. */
  otherContent: string
  /** Label of the reply text area in the sampling form. */
  reply: string
  /** Accessible name of an MCP App's frame: `{name}` (the tool's title or name). */
  appFrame: string
  /** Heading of the consent dialog when an App asks to open a link (the URL is shown under it). */
  appOpenLink: string
  /** Heading of the consent dialog when an App asks to send a message to the conversation (shown under it). */
  appMessage: string
  /** Allow button of an App's consent dialog (Decline, Escape or closing it denies). */
  appAllow: string
}

/** The built-in (English) strings. */
export const DEFAULT_STRINGS: Readonly<BrowserStrings> = Object.freeze({
  submit: 'Submit',
  decline: 'Decline',
  cancel: 'Cancel',
  declineOrCancel: 'Decline says no to this question. Cancel closes it without answering.',
  open: 'Open',
  send: 'Send',
  origin: 'Request from {server} ({target})',
  unknownServer: 'the server',
  progress: 'Question {index} of {total}',
  required: 'required',
  requiredMark: '*',
  choose: 'Choose…',
  requiredField: 'This field is required.',
  requiredChoice: 'Choose at least one.',
  tooShort: 'Use at least {min} characters.',
  tooLong: 'Use at most {max} characters.',
  invalidEmail: 'Enter an e-mail address.',
  invalidUri: 'Enter a full address (URL).',
  invalidDate: 'Enter a complete date.',
  notNumber: 'Enter a number.',
  notInteger: 'Enter a whole number.',
  notMultiple: 'Enter a multiple of {step}.',
  tooSmall: 'Enter {min} or more.',
  tooLarge: 'Enter {max} or less.',
  tooFewItems: 'Choose at least {min}.',
  tooManyItems: 'Choose at most {max}.',
  urlIntro: 'The server asks you to open this address:',
  insecureUrl: 'Warning: this address is not secure (not https).',
  unsupportedUrl: 'This address cannot be opened from here.',
  punycodeUrl: 'Warning: the site name contains international letters (shown as xn--…) that can imitate another name.',
  userinfoUrl: 'Warning: the address has a user name before the site name; the site it opens is the highlighted part.',
  samplingTitle: 'The server asks you to write the reply',
  systemPrompt: 'Instructions',
  roleUser: 'User',
  roleAssistant: 'Assistant',
  otherContent: '[{type} {mimeType}]',
  reply: 'Your reply',
  appFrame: 'App: {name}',
  appOpenLink: 'The app asks to open this address:',
  appMessage: 'The app asks to send this message for you:',
  appAllow: 'Allow',
})

/** Replace each `{name}` in `template` by `values[name]` (unknown names stay as they are). */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole))
}
