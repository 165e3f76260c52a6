import { Link as RouterLink } from 'react-router';
import Link from '@mui/material/Link';
import { PolicyDocument, type PolicySection } from '../components/PolicyDocument.tsx';

const contactLink = (
  <Link component={RouterLink} to="/contact-us">
    contact form
  </Link>
);

const SECTIONS: readonly PolicySection[] = [
  {
    id: 'who-we-are',
    title: 'Who we are',
    body: (
      <>
        <p>
          Layerline is open-source software that a print farm runs on its own servers. On this site, “we”
          means the print farm that operates this Layerline instance: it decides what data is collected and is
          responsible for it. No data you give this site goes to the Layerline open-source project or to any
          other Layerline instance.
        </p>
        <p>You can reach us about privacy at any time through the {contactLink}.</p>
      </>
    ),
  },
  {
    id: 'what-we-collect',
    title: 'What we collect',
    body: (
      <ul>
        <li>
          <strong>Account</strong>: your name, email address, business name and password (stored only as a
          salted hash), and whether your account is a beta tester or an admin.
        </li>
        <li>
          <strong>Return address</strong>: the address your parcels ship from, printed on shipping labels.
        </li>
        <li>
          <strong>Designs</strong>: the 3D files you upload and the quotes we make for them (see the{' '}
          <Link component={RouterLink} to="/3d-design-handling-policy">
            3D design handling policy
          </Link>
          ).
        </li>
        <li>
          <strong>Shops and orders</strong>: the marketplaces you connect (with the access they grant us),
          your listings and SKUs, and for each order the items, your customer’s name and shipping address, and
          the tracking number.
        </li>
        <li>
          <strong>Payments</strong>: a reference to the card you store with our payment provider and the
          charges made. We never see or store your full card number.
        </li>
        <li>
          <strong>Messages</strong>: what you send through the contact form, with your name and email address.
        </li>
        <li>
          <strong>Usage and errors</strong>: the pages you visit (page title and path), and reports of errors
          in the app, which include your user id, name and email if you are signed in, so we can help you when
          something breaks.
        </li>
      </ul>
    ),
  },
  {
    id: 'why',
    title: 'Why we use it',
    body: (
      <ul>
        <li>To run your account and sign you in (needed to provide the service).</li>
        <li>
          To quote, print, pack and ship your orders and post tracking back to your marketplace (needed to
          provide the service).
        </li>
        <li>To charge fulfilment costs to your stored card when you sell (needed to provide the service).</li>
        <li>To answer your messages.</li>
        <li>
          To keep the service working and secure: error reports, abuse prevention and audit records of admin
          actions (our legitimate interest).
        </li>
        <li>
          To understand which pages are used, in aggregate, so we can improve them (our legitimate interest).
        </li>
      </ul>
    ),
  },
  {
    id: 'processors',
    title: 'Who we share it with',
    body: (
      <>
        <p>We share data only with the services that carry out part of the work, and only what each needs:</p>
        <ul>
          <li>
            <strong>Stripe</strong>: stores your card, handles seller onboarding and processes fulfilment
            charges.
          </li>
          <li>
            <strong>Shippo and ShipStation</strong>: receive the shipping address, parcel details and your
            return address to buy labels and track parcels.
          </li>
          <li>
            <strong>The marketplaces you connect</strong> (Etsy, Shopify, WooCommerce, eBay, Amazon, Walmart,
            TikTok Shop): we read your orders and listings from them and send tracking numbers back.
          </li>
          <li>
            <strong>Email delivery</strong>: the service that sends account and order emails.
          </li>
          <li>
            <strong>Error reporting and product analytics</strong>, if this instance has them switched on:
            they receive error reports and usage events as described above, loaded only after the page has
            finished loading.
          </li>
        </ul>
        <p>We never sell your data, and we do not share it for advertising.</p>
      </>
    ),
  },
  {
    id: 'cookies',
    title: 'Cookies and local storage',
    body: (
      <ul>
        <li>
          A session cookie keeps you signed in. It is strictly necessary and is removed when you log out.
        </li>
        <li>
          Your browser’s local storage remembers your theme (dark or light) and, if you arrived through a
          referral link, the referral code until you sign up.
        </li>
        <li>We use no advertising or cross-site tracking cookies.</li>
      </ul>
    ),
  },
  {
    id: 'retention',
    title: 'How long we keep it',
    body: (
      <ul>
        <li>Account data: while your account is open; deleted when you ask us to close it.</li>
        <li>Designs: while the design exists; deleted from backups within 30 days of deletion.</li>
        <li>Orders, charges and invoices: as long as tax and accounting law requires.</li>
        <li>Contact messages: as long as needed to answer you and follow up.</li>
        <li>Page-view and error data: kept only as long as it is useful to run and improve the service.</li>
      </ul>
    ),
  },
  {
    id: 'rights',
    title: 'Your rights',
    body: (
      <>
        <p>Depending on where you live (for example under the GDPR or the CCPA), you have the right to:</p>
        <ul>
          <li>get a copy of the data we hold about you, in a portable format;</li>
          <li>have it corrected (most of it you can edit yourself in your account settings);</li>
          <li>have it deleted, unless we must keep it by law;</li>
          <li>object to, or ask us to restrict, how we use it;</li>
          <li>complain to your data protection authority.</li>
        </ul>
        <p>Send requests through the {contactLink}; we answer within one month.</p>
      </>
    ),
  },
  {
    id: 'security',
    title: 'Security',
    body: (
      <p>
        Connections to this site are encrypted, passwords are stored only as hashes, and access to your data
        inside the print farm is limited to the admins who need it. Because Layerline is open source, how your
        data is handled can be read in its code.
      </p>
    ),
  },
  {
    id: 'changes',
    title: 'Changes to this policy',
    body: (
      <p>
        If we change this policy we update the date at the top; if the change matters to how your data is
        used, we tell signed-in sellers by email before it applies.
      </p>
    ),
  },
];

export default function PrivacyPolicyPage() {
  return (
    <PolicyDocument
      title="Privacy Policy"
      summary="What this Layerline instance collects about you, why, who else sees it, how long we keep it, and how to get it changed or deleted."
      lastUpdated="21 November 2026"
      sections={SECTIONS}
    />
  );
}
