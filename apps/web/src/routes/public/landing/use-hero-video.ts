import { useEffect, useRef, useState, type RefObject } from 'react';
import { UI_TIMING } from '@layerline/contracts';

export interface HeroVideoState {
  videoRef: RefObject<HTMLVideoElement | null>;
  /** True until the video can show something (§4), or until the loading timeout. */
  loading: boolean;
  /** Whether the visitor paused it with the pause button (then scrolling does not restart it). */
  pausedByVisitor: boolean;
  togglePaused(): void;
}

/** Events after which the video has something to show (§4); `timeupdate` counts only when time moves. */
const READY_EVENTS = ['loadedmetadata', 'canplay', 'playing'] as const;

/**
 * The hero video's behaviour (§2, §4): it plays at 1.25× only while it is on screen, and a loading
 * overlay covers it until it has metadata, can play, plays, advances, fails, or 3 s have passed.
 * Under reduced motion it does not start by itself; the visitor can still press play.
 */
export function useHeroVideo({ autoplay }: { autoplay: boolean }): HeroVideoState {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [loading, setLoading] = useState(true);
  const [pausedByVisitor, setPausedByVisitor] = useState(!autoplay);
  const visibleRef = useRef(false);

  // Loading overlay: whichever comes first clears it.
  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    const done = () => setLoading(false);
    const onTimeUpdate = () => {
      if (video.currentTime > 0) done();
    };
    const onError = () => {
      // §8: a video error is logged and the overlay cleared; the poster stays visible.
      console.error('Hero video failed to load', video.error);
      done();
    };
    for (const event of READY_EVENTS) video.addEventListener(event, done);
    video.addEventListener('timeupdate', onTimeUpdate);
    video.addEventListener('error', onError);
    const timeout = window.setTimeout(done, UI_TIMING.heroVideoLoadingTimeoutMs);
    // The element may have loaded before this effect ran (cached file).
    if (video.readyState >= HTMLMediaElement.HAVE_METADATA) done();
    return () => {
      for (const event of READY_EVENTS) video.removeEventListener(event, done);
      video.removeEventListener('timeupdate', onTimeUpdate);
      video.removeEventListener('error', onError);
      window.clearTimeout(timeout);
    };
  }, []);

  // Playback: only while visible, always at the spec's rate (browsers reset the rate on load).
  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    const applyRate = () => {
      video.defaultPlaybackRate = UI_TIMING.heroVideoPlaybackRate;
      video.playbackRate = UI_TIMING.heroVideoPlaybackRate;
    };
    applyRate();
    video.addEventListener('loadedmetadata', applyRate);

    const sync = () => {
      if (visibleRef.current && !pausedByVisitor) {
        applyRate();
        video.play().catch((error: unknown) => {
          // Autoplay can be refused (data saver, browser policy); the poster stays, nothing else breaks.
          if (!(error instanceof DOMException && error.name === 'AbortError'))
            console.warn('Hero video did not start', error);
        });
      } else if (!video.paused) {
        video.pause();
      }
    };

    if (typeof IntersectionObserver === 'undefined') {
      visibleRef.current = true;
      sync();
      return () => video.removeEventListener('loadedmetadata', applyRate);
    }
    const observer = new IntersectionObserver(
      (entries) => {
        const entry = entries[entries.length - 1];
        if (!entry) return;
        visibleRef.current = entry.isIntersecting;
        sync();
      },
      { threshold: 0.25 },
    );
    observer.observe(video);
    sync();
    return () => {
      observer.disconnect();
      video.removeEventListener('loadedmetadata', applyRate);
    };
  }, [pausedByVisitor]);

  return { videoRef, loading, pausedByVisitor, togglePaused: () => setPausedByVisitor((paused) => !paused) };
}
