import { useState } from 'react';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import PauseIcon from '@mui/icons-material/Pause';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import { useHeroVideo } from './use-hero-video.ts';

const prefersReducedMotion = () =>
  typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;

/**
 * The hero video: a vase printed layer by layer on a turning bed (rendered by
 * scripts/make-hero-video.sh). Muted, looping, inline; a pause button for anyone who
 * wants the page to hold still.
 */
export function HeroVideo() {
  const [autoplay] = useState(() => !prefersReducedMotion());
  const { videoRef, loading, pausedByVisitor, togglePaused } = useHeroVideo({ autoplay });

  return (
    <Box
      sx={{
        position: 'relative',
        borderRadius: 4,
        overflow: 'hidden',
        aspectRatio: '16 / 9',
        bgcolor: '#0b1120',
        border: 1,
        borderColor: 'divider',
        boxShadow: '0 30px 80px -30px rgba(249,115,22,0.45)',
      }}
    >
      <Box
        component="video"
        ref={videoRef}
        data-testid="hero-video"
        aria-label="A vase being 3D printed layer by layer in orange filament"
        poster="/media/hero-poster.jpg"
        muted
        loop
        playsInline
        preload="metadata"
        sx={{ display: 'block', width: '100%', height: '100%', objectFit: 'cover' }}
      >
        <source src="/media/hero.webm" type="video/webm" />
        <source src="/media/hero.mp4" type="video/mp4" />
      </Box>
      {loading ? (
        <Box
          data-testid="hero-video-loading"
          role="status"
          aria-label="Loading video"
          sx={{
            position: 'absolute',
            inset: 0,
            display: 'grid',
            placeItems: 'center',
            bgcolor: 'rgba(11,17,32,0.55)',
          }}
        >
          <CircularProgress color="primary" />
        </Box>
      ) : null}
      <IconButton
        onClick={togglePaused}
        aria-label={pausedByVisitor ? 'Play video' : 'Pause video'}
        data-testid="hero-video-toggle"
        size="small"
        sx={{
          position: 'absolute',
          right: 12,
          bottom: 12,
          color: '#fff',
          bgcolor: 'rgba(11,17,32,0.6)',
          '&:hover': { bgcolor: 'rgba(11,17,32,0.85)' },
        }}
      >
        {pausedByVisitor ? <PlayArrowIcon fontSize="small" /> : <PauseIcon fontSize="small" />}
      </IconButton>
    </Box>
  );
}
