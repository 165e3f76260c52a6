import { useState } from 'react';

/**
 * The pages a reader has walked through a keyset-paged list: the cursors of the pages before
 * this one, so Previous returns exactly where the reader was. Any change of `filterKey` (search,
 * filters) starts again at the first page.
 */
export function useCursorPages(filterKey: string) {
  const [state, setState] = useState<{ filterKey: string; cursors: (string | undefined)[] }>({
    filterKey,
    cursors: [undefined],
  });
  // Reset during render when the filters changed, so the stale cursor is never requested.
  const cursors = state.filterKey === filterKey ? state.cursors : [undefined];
  if (state.filterKey !== filterKey) setState({ filterKey, cursors });
  return {
    /** The cursor to request (undefined for the first page). */
    cursor: cursors.at(-1),
    /** 1-based number of the page shown. */
    pageNumber: cursors.length,
    next: (nextCursor: string) => setState({ filterKey, cursors: [...cursors, nextCursor] }),
    previous: () => setState({ filterKey, cursors: cursors.length > 1 ? cursors.slice(0, -1) : cursors }),
  };
}
