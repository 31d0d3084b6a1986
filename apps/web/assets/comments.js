// Comments on a file's page: selecting lines of the preview fills "From line" and "to line"
// of the new-comment form (typing the numbers works the same, without this script).
(() => {
  const start = document.getElementById('comment-start');
  const end = document.getElementById('comment-end');
  if (start === null || end === null) return;
  const lineOf = (node) => {
    const el = node === null ? null : node.nodeType === 1 ? node : node.parentElement;
    const line = el === null ? null : el.closest('.code .line');
    return line === null ? null : Number(line.id.slice(1));
  };
  document.addEventListener('selectionchange', () => {
    const selection = document.getSelection();
    if (selection === null || selection.isCollapsed || selection.rangeCount === 0) return;
    const range = selection.getRangeAt(0);
    const first = lineOf(range.startContainer);
    let last = lineOf(range.endContainer);
    if (first === null || last === null) return;
    // A selection that ends at the very start of a line does not take that line.
    if (last > first && range.endOffset === 0) last -= 1;
    start.value = String(first);
    end.value = String(last);
  });
})();
