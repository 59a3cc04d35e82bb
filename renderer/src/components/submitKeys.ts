/**
 * Ctrl+Enter (⌘+Enter) in a text area sends its form, as Enter does in a one-line field; Enter
 * alone still starts a new line. It goes through the form's own submit event, like every other
 * way of sending a form, so one press is one submit. A keydown listener for the form element.
 */
export function ctrlEnterSubmits(e: KeyboardEvent): void {
  if (e.key !== 'Enter' || !(e.ctrlKey || e.metaKey) || e.repeat) return
  if (!(e.target instanceof HTMLTextAreaElement)) return
  const form = e.currentTarget
  if (!(form instanceof HTMLFormElement)) return
  e.preventDefault()
  form.requestSubmit()
}
