import { useCallback } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';

const PARAM = 'design';

interface OpenedHereState {
  designOpenedHere?: boolean;
}

/**
 * The design whose detail is open, kept in the `?design=<id>` search parameter so the browser's
 * back button closes it and a link to it can be shared. Closing goes back in history when the
 * detail was opened from this page, and otherwise just drops the parameter.
 */
export function useDesignParam() {
  const [searchParams, setSearchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const designId = searchParams.get(PARAM);

  const openDesign = useCallback(
    (id: string) => {
      setSearchParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.set(PARAM, id);
          return next;
        },
        { state: { designOpenedHere: true } satisfies OpenedHereState },
      );
    },
    [setSearchParams],
  );

  const openedHere = (location.state as OpenedHereState | null)?.designOpenedHere === true;
  const closeDesign = useCallback(() => {
    if (openedHere) {
      void navigate(-1);
      return;
    }
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(PARAM);
        return next;
      },
      { replace: true },
    );
  }, [openedHere, navigate, setSearchParams]);

  return { designId, openDesign, closeDesign };
}
