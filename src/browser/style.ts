/**
 * The optional stylesheet of `edge-mcp/browser` (the forms are unstyled without it). Install it with
 * `const style = document.createElement('style'); style.textContent = DEFAULT_STYLESHEET; document.head.append(style)`.
 * It only touches `mcp-*` classes and inherits font and colours.
 * @module
 */
export const DEFAULT_STYLESHEET = `.mcp-dialog{max-width:min(36rem,calc(100vw - 2rem));border:1px solid #8888;border-radius:.5rem;padding:1.25rem;color:inherit;background:Canvas}
.mcp-dialog::backdrop{background:#0007}
.mcp-form{display:grid;gap:.75rem}
.mcp-origin,.mcp-progress{margin:0;font-size:.85em;opacity:.75}
.mcp-message{margin:0;font-size:1.15em}
.mcp-fields{display:grid;gap:.9rem}
.mcp-field{display:grid;gap:.3rem;margin:0;padding:0;border:0;min-width:0}
.mcp-field legend{padding:0;margin-bottom:.3rem}
.mcp-field-boolean{grid-template-columns:auto 1fr;align-items:center;column-gap:.5rem}
.mcp-field-boolean>.mcp-description,.mcp-field-boolean>.mcp-error{grid-column:1/-1}
.mcp-label{font-weight:600}
.mcp-required{color:#c0262d;margin-inline-start:.2em}
.mcp-description{margin:0;font-size:.9em;opacity:.8}
.mcp-error{margin:0;color:#c0262d;font-size:.9em}
.mcp-error:empty{display:none}
.mcp-form [aria-invalid=true]{outline:2px solid #c0262d;outline-offset:1px}
.mcp-options{display:flex;flex-wrap:wrap;gap:.4rem 1rem}
.mcp-option{display:inline-flex;gap:.35rem;align-items:center}
.mcp-form input:not([type=checkbox]),.mcp-form select,.mcp-form textarea{font:inherit;padding:.35rem .5rem}
.mcp-form input:not([type=checkbox]),.mcp-form select{min-height:2.75rem;box-sizing:border-box}
.mcp-reply{min-height:6rem}
.mcp-actions{display:flex;flex-wrap:wrap;gap:.5rem;justify-content:flex-end}
.mcp-actions button{font:inherit;min-height:2.75rem;min-width:2.75rem;padding:.4rem 1rem}
.mcp-actions-hint{flex-basis:100%;margin:0;font-size:.85em;opacity:.75;text-align:end}
.mcp-form input[type=checkbox]{width:1.25rem;height:1.25rem;margin:0}
.mcp-url{margin:0;padding:.5rem;border:1px solid #8886;border-radius:.25rem;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
.mcp-url-host{font-weight:700;text-decoration:underline}
.mcp-warning{margin:0;font-weight:600;color:#a34a00}
.mcp-messages{margin:0;padding:0;list-style:none;display:grid;gap:.5rem;max-height:40vh;overflow:auto}
.mcp-turn{padding:.5rem;border-inline-start:3px solid #8888}
.mcp-role{display:block;font-size:.85em;font-weight:600}
.mcp-text{margin:0;white-space:pre-wrap}
.mcp-system .mcp-text{display:block}
.mcp-app{display:block;width:100%;border:0}
.mcp-app-border{border:1px solid #8888;border-radius:.5rem}
`
