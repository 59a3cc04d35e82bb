/**
 * What Naive UI (2.45) renders that a screen reader or the keyboard cannot use, and that no prop
 * reaches, repaired in the live document:
 * - a card's header is two nested `role="heading"` without a level (and the outer one wraps the
 *   header's buttons): the outer becomes `role="none"`, the inner gets its level by nesting
 *   (a card at the top of a screen is level 2, under its h1; a card inside a card, 3);
 * - a slider's handle (`role="slider"`) has no name: a screen puts `data-a11y-label` (and
 *   optionally `data-a11y-valuetext`) on the NSlider, and they go to the handle;
 * - a table's scrolling body cannot be reached by the keyboard: a screen puts `data-a11y-scroll`
 *   (the region's name) on the NDataTable, and its scroll container becomes a named, focusable
 *   region, so arrow keys scroll it;
 * - a form item's message (its hint, or the error that replaces it) is not tied to its field:
 *   the message gets an id and is announced as it changes, the field points to it with
 *   aria-describedby and says aria-invalid while the item is in error. A field whose screen ties
 *   its own message (aria-describedby already set) is left alone.
 */

function headingLevel(inner: Element): number {
  let level = 2
  let card = inner.closest('.n-card')?.parentElement?.closest('.n-card')
  while (card) {
    level++
    card = card.parentElement?.closest('.n-card')
  }
  return Math.min(level, 6)
}

function repairCardHeadings(root: ParentNode): void {
  for (const outer of root.querySelectorAll('.n-card-header[role="heading"]')) outer.setAttribute('role', 'none')
  for (const inner of root.querySelectorAll('.n-card-header__main[role="heading"]:not([aria-level])')) {
    inner.setAttribute('aria-level', String(headingLevel(inner)))
  }
}

function setIfChanged(el: Element, name: string, value: string | null): void {
  if (value === null) el.removeAttribute(name)
  else if (el.getAttribute(name) !== value) el.setAttribute(name, value)
}

function repairSliders(root: ParentNode): void {
  for (const slider of root.querySelectorAll('.n-slider[data-a11y-label]')) {
    for (const handle of slider.querySelectorAll('[role="slider"]')) {
      setIfChanged(handle, 'aria-label', slider.getAttribute('data-a11y-label'))
      setIfChanged(handle, 'aria-valuetext', slider.getAttribute('data-a11y-valuetext'))
    }
  }
}

function repairScrollRegions(root: ParentNode): void {
  for (const table of root.querySelectorAll('.n-data-table[data-a11y-scroll]')) {
    const body = table.querySelector(
      '.n-data-table-base-table-body .n-scrollbar-container, .n-data-table-base-table-body .v-vl',
    )
    if (!body) continue
    setIfChanged(body, 'tabindex', '0')
    setIfChanged(body, 'role', 'region')
    setIfChanged(body, 'aria-label', table.getAttribute('data-a11y-scroll'))
  }
}

const FIELD_CONTROLS = 'input:not([type="hidden"]), textarea, [role="checkbox"], .n-base-selection[tabindex]'
let feedbackIds = 0

function repairFormFeedback(root: ParentNode): void {
  for (const item of root.querySelectorAll('.n-form-item')) {
    const message = item.querySelector(':scope > .n-form-item-feedback-wrapper')
    const blank = item.querySelector(':scope > .n-form-item-blank')
    if (!message || !blank) continue
    if (!message.id) message.id = `field-message-${++feedbackIds}`
    setIfChanged(message, 'aria-live', 'polite')
    const said = Boolean(message.textContent?.trim())
    const invalid = blank.classList.contains('n-form-item-blank--error')
    for (const control of blank.querySelectorAll(FIELD_CONTROLS)) {
      if (control.hasAttribute('aria-describedby') && !control.hasAttribute('data-a11y-message')) continue
      control.setAttribute('data-a11y-message', '')
      setIfChanged(control, 'aria-describedby', said ? message.id : null)
      setIfChanged(control, 'aria-invalid', invalid ? 'true' : null)
    }
  }
}

export function repairAll(root: ParentNode): void {
  repairCardHeadings(root)
  repairFormFeedback(root)
  repairSliders(root)
  repairScrollRegions(root)
}

/** Repairs the document now and after every change to it (batched per task by the observer). */
export function watchRepairs(doc: Document = document): () => void {
  repairAll(doc)
  const observer = new MutationObserver(() => repairAll(doc))
  observer.observe(doc.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ['data-a11y-label', 'data-a11y-valuetext', 'data-a11y-scroll'],
  })
  return () => observer.disconnect()
}
