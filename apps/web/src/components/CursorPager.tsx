import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import type { useCursorPages } from './use-cursor-pages.ts';

/** Previous / Next for a keyset-paged list; hidden while there is only one page. */
export function CursorPager({
  pages,
  nextCursor,
  label,
}: {
  pages: ReturnType<typeof useCursorPages>;
  /** The next page's cursor from the last answer (null on the last page). */
  nextCursor: string | null | undefined;
  /** What the pages are of, for screen readers ("Pages of orders"). */
  label: string;
}) {
  if (pages.pageNumber === 1 && !nextCursor) return null;
  return (
    <Box component="nav" aria-label={label} sx={{ display: 'flex', alignItems: 'center', gap: 2, mt: 2 }}>
      <Button size="small" disabled={pages.pageNumber === 1} onClick={pages.previous}>
        Previous
      </Button>
      <Typography variant="body2" color="text.secondary">
        Page {pages.pageNumber}
      </Typography>
      <Button size="small" disabled={!nextCursor} onClick={() => nextCursor && pages.next(nextCursor)}>
        Next
      </Button>
    </Box>
  );
}
