import { useEffect, useState, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { Design } from '@layerline/contracts';
import { invalidateDesignLists, UploadAbortedError, uploadDesign } from '../../../../api/designs.ts';
import { isActive, UploadQueueStore, type UploadItem } from './upload-queue-store.ts';

export type { UploadItem } from './upload-queue-store.ts';

export interface UploadQueue {
  readonly items: readonly UploadItem[];
  readonly designs: readonly Design[];
  readonly busy: boolean;
  addFiles(files: Iterable<File>): void;
  cancel(key: number): void;
  clearFinished(): void;
}

/** This page's uploads; they stop when the page is left. */
export function useUploadQueue(): UploadQueue {
  const queryClient = useQueryClient();
  const [store] = useState(
    () =>
      new UploadQueueStore(
        (file, callbacks) => uploadDesign(file, callbacks),
        () => invalidateDesignLists(queryClient),
        (error) => error instanceof UploadAbortedError,
      ),
  );
  const items = useSyncExternalStore(store.subscribe, store.getSnapshot);
  useEffect(() => () => store.stopAll(), [store]);
  return {
    items,
    designs: items.flatMap((item) => (item.design ? [item.design] : [])),
    busy: items.some(isActive),
    addFiles: (files) => store.addFiles(files),
    cancel: (key) => store.cancel(key),
    clearFinished: () => store.clearFinished(),
  };
}
