import { CallToActionBand } from '../components/CallToActionBand.tsx';
import { PublicSection } from '../components/PublicSection.tsx';
import { EarningsCalculatorSection } from './EarningsCalculatorSection.tsx';
import { FaqSection } from './FaqSection.tsx';
import { HeroSection } from './HeroSection.tsx';
import { ItemGrid } from './ItemGrid.tsx';
import { PRODUCTION_SERVICES, WHY_US } from './landing-content.ts';
import { PlatformTilesSection } from './PlatformTilesSection.tsx';
import { TestimonialSection } from './TestimonialSection.tsx';
import { ThreeStepsSection } from './ThreeStepsSection.tsx';
import { useScrollToHash } from './use-scroll-to-hash.ts';

/** The landing page (§2): every section the spec lists, in the order a seller would ask about them. */
export default function LandingPage() {
  useScrollToHash();
  return (
    <>
      <HeroSection />
      <ThreeStepsSection />
      <PublicSection
        id="production-services"
        eyebrow="Production services"
        title="More than a print: finished products, ready to ship"
        intro="Tell us what your product needs. Everything beyond the print itself is quoted per design."
        tinted
        testId="production-services"
      >
        <ItemGrid items={PRODUCTION_SERVICES} columns={{ sm: 2, md: 5 }} testId="service" />
      </PublicSection>
      <EarningsCalculatorSection />
      <PlatformTilesSection />
      <TestimonialSection />
      <PublicSection
        id="why-us"
        eyebrow="Why Layerline"
        title="A print farm that has been doing this for years"
        intro="Hundreds of creators trust us with their products. Here is why."
        testId="why-us"
      >
        <ItemGrid items={WHY_US} columns={{ sm: 2, md: 4 }} testId="why-us" />
      </PublicSection>
      <FaqSection />
      <CallToActionBand />
    </>
  );
}
