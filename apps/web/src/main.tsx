import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App.tsx';
import { captureAffiliateRef } from './app/affiliate-ref.ts';

// Capture a referral before anything can redirect the URL away (e.g. /upload?ref=... → /create-product).
captureAffiliateRef(window.location.search);

const container = document.getElementById('root');
if (!container) throw new Error('The page has no #root element to render into');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
