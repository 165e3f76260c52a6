import { useCallback } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';

/**
 * The id of the item whose detail dialog is open, kept in a `?<param>=<id>` search parameter so the
 * browser's back button closes it and a link to it can be shared. Closing goes back in history when
 * the detail was opened from this page, and otherwise just drops the parameter.
 */
export function useDetailParam(param: string) {
  const [searchParams, setSearchParams] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const openedHereKey = `${param}OpenedHere`;

  const open = useCallback(
    (id: string) => {
      setSearchParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.set(param, id);
          return next;
        },
        { state: { [openedHereKey]: true } },
      );
    },
    [param, openedHereKey, setSearchParams],
  );

  const openedHere = (location.state as Record<string, unknown> | null)?.[openedHereKey] === true;
  const close = useCallback(() => {
    if (openedHere) {
      void navigate(-1);
      return;
    }
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(param);
        return next;
      },
      { replace: true },
    );
  }, [param, openedHere, navigate, setSearchParams]);

  return { id: searchParams.get(param), open, close };
}
