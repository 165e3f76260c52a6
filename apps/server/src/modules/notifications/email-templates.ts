import { EMAIL_TYPE_INFO, type EmailTemplateType } from '@layerline/contracts';
import { AppError } from '../../errors.ts';

/**
 * The product's emails: a subject and a body with `{{var}}` variables, rendered to HTML (every
 * variable's value HTML-escaped, inside one small branded layout) and to plain text. Every email
 * carries its unsubscribe link and a link to the email settings.
 */

type VarValue = string | number | null;

/** The variables each product email takes (what other modules pass to notify). */
export interface TemplateVars {
  welcome: { name: VarValue; dashboardUrl: VarValue };
  order_on_hold: { orderNumber: VarValue; reason: VarValue; orderUrl: VarValue };
  payment_failed: { orderNumber: VarValue; amount: VarValue; reason: VarValue; actionUrl: VarValue; billingUrl: VarValue };
  payment_action_required: { orderNumber: VarValue; amount: VarValue; reason: VarValue; actionUrl: VarValue; billingUrl: VarValue };
  /** refundedTo: where the money went ('your card', 'your prepaid balance'). */
  order_refunded: { orderNumber: VarValue; amount: VarValue; reason: VarValue; billingUrl: VarValue; refundedTo: VarValue };
  order_price_adjusted: { orderNumber: VarValue; amount: VarValue; reason: VarValue; billingUrl: VarValue };
  wallet_recharge_failed: { amount: VarValue; reason: VarValue; billingUrl: VarValue };
  order_shipped: { orderNumber: VarValue; carrier: VarValue; trackingNumber: VarValue; trackingUrl: VarValue; orderUrl: VarValue };
  order_delivered: { orderNumber: VarValue; orderUrl: VarValue };
  claim_updated: { orderNumber: VarValue; kind: VarValue; status: VarValue; detail: VarValue; claimsUrl: VarValue };
  affiliate_earning: { amount: VarValue; orderNumber: VarValue; referredSeller: VarValue; affiliateLinksUrl: VarValue };
  weekly_summary: { weekOf: VarValue; ordersReceived: VarValue; ordersShipped: VarValue; amountCharged: VarValue; dashboardUrl: VarValue };
}
export type ProductTemplate = keyof TemplateVars;

/** A block of an email's body; text may hold `{{var}}`. */
type Block =
  | { readonly kind: 'p'; readonly text: string }
  | { readonly kind: 'facts'; readonly rows: readonly (readonly [label: string, value: string])[] }
  /** A link as a button; left out when its URL renders empty. */
  | { readonly kind: 'button'; readonly label: string; readonly url: string };

interface Template {
  readonly subject: string;
  readonly blocks: readonly Block[];
}

const p = (text: string): Block => ({ kind: 'p', text });
const button = (label: string, url: string): Block => ({ kind: 'button', label, url });
const facts = (...rows: (readonly [string, string])[]): Block => ({ kind: 'facts', rows });

const TEMPLATES: Readonly<Record<ProductTemplate, Template>> = {
  welcome: {
    subject: 'Welcome to Layerline, {{name}}',
    blocks: [
      p('Hi {{name}}, welcome to Layerline.'),
      p('Upload a 3D model, link it to your listings, and we print, pack and ship every order. You pay only when you sell.'),
      button('Open your dashboard', '{{dashboardUrl}}'),
    ],
  },
  order_on_hold: {
    subject: 'Action needed: order {{orderNumber}} is on hold',
    blocks: [
      p('Order {{orderNumber}} is on hold and will not be printed until it is sorted out.'),
      facts(['Order', '{{orderNumber}}'], ['Reason', '{{reason}}']),
      button('Open the order', '{{orderUrl}}'),
    ],
  },
  payment_failed: {
    subject: 'Payment failed for order {{orderNumber}}',
    blocks: [
      p('We could not charge your card {{amount}} for order {{orderNumber}}, so the order is on hold and nothing is printed.'),
      facts(['Order', '{{orderNumber}}'], ['Amount', '{{amount}}'], ['Reason', '{{reason}}']),
      p('Add a new card and the order is released and charged again.'),
      button('Update your card', '{{billingUrl}}'),
      button('See what happened', '{{actionUrl}}'),
    ],
  },
  payment_action_required: {
    subject: 'Confirm the payment for order {{orderNumber}}',
    blocks: [
      p('Your bank asks you to confirm the payment of {{amount}} for order {{orderNumber}}. The order waits until you do.'),
      facts(['Order', '{{orderNumber}}'], ['Amount', '{{amount}}'], ['Reason', '{{reason}}']),
      button('Confirm the payment', '{{actionUrl}}'),
      button('Your billing settings', '{{billingUrl}}'),
    ],
  },
  order_refunded: {
    subject: 'Refund of {{amount}} for order {{orderNumber}}',
    blocks: [
      p('We refunded {{amount}} for order {{orderNumber}}.'),
      facts(['Order', '{{orderNumber}}'], ['Refunded', '{{amount}}'], ['Refunded to', '{{refundedTo}}'], ['Reason', '{{reason}}']),
      p('A refund to your card shows at your bank within a few days; one to your prepaid balance is there already.'),
      button('See your billing', '{{billingUrl}}'),
    ],
  },
  order_price_adjusted: {
    subject: 'Order {{orderNumber}}: {{amount}} more after its exact quote',
    blocks: [
      p('Order {{orderNumber}} was charged at its estimated price; its exact quote came out higher, so we charged the difference of {{amount}} to your card.'),
      facts(['Order', '{{orderNumber}}'], ['Charged', '{{amount}}'], ['Reason', '{{reason}}']),
      button('See your billing', '{{billingUrl}}'),
    ],
  },
  wallet_recharge_failed: {
    subject: 'Auto-recharge of {{amount}} failed',
    blocks: [
      p('Your balance fell below your auto-recharge threshold, but we could not charge your card {{amount}} to top it up. Orders are charged to your card until the balance covers them again.'),
      facts(['Amount', '{{amount}}'], ['Reason', '{{reason}}']),
      button('Open Billing', '{{billingUrl}}'),
    ],
  },
  order_shipped: {
    subject: 'Order {{orderNumber}} has shipped',
    blocks: [
      p('Order {{orderNumber}} is on its way.'),
      facts(['Carrier', '{{carrier}}'], ['Tracking number', '{{trackingNumber}}']),
      button('Track the parcel', '{{trackingUrl}}'),
      button('Open the order', '{{orderUrl}}'),
    ],
  },
  order_delivered: {
    subject: 'Order {{orderNumber}} was delivered',
    blocks: [p('The carrier delivered order {{orderNumber}}.'), button('Open the order', '{{orderUrl}}')],
  },
  claim_updated: {
    subject: 'Your claim on order {{orderNumber}}: {{status}}',
    blocks: [
      p('Your claim on order {{orderNumber}} ({{kind}}) is now: {{status}}.'),
      facts(['Order', '{{orderNumber}}'], ['Claim', '{{kind}}'], ['Status', '{{status}}'], ['Details', '{{detail}}']),
      button('See your claims', '{{claimsUrl}}'),
    ],
  },
  affiliate_earning: {
    subject: 'You earned {{amount}} on order {{orderNumber}}',
    blocks: [
      p('{{referredSeller}}, a seller you referred, had order {{orderNumber}} charged. Your share is {{amount}}.'),
      p('It is pending until the order is delivered and the holding period has passed, then it is paid out with the next monthly run.'),
      button('See your earnings', '{{affiliateLinksUrl}}'),
    ],
  },
  weekly_summary: {
    subject: 'Your week on Layerline ({{weekOf}})',
    blocks: [
      p('Here is what happened in the week of {{weekOf}}.'),
      facts(['Orders received', '{{ordersReceived}}'], ['Orders shipped', '{{ordersShipped}}'], ['Charged', '{{amountCharged}}']),
      button('Open your dashboard', '{{dashboardUrl}}'),
    ],
  },
};

export interface RenderedEmail {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

export interface Footer {
  /** Where the in-body unsubscribe link points (the web page); null when there is none (a non-user address). */
  readonly unsubscribeUrl: string | null;
  /** Account settings' email section. */
  readonly settingsUrl: string;
}

const VAR = /\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Replaces every `{{var}}`; a variable the caller did not give is an error (a typo must not mail "{{nmae}}"). */
function fill(template: string, vars: Readonly<Record<string, VarValue>>, escape: (value: string) => string): string {
  return template.replace(VAR, (_match, name: string) => {
    if (!Object.hasOwn(vars, name)) throw new AppError('bad-request', `Unknown variable {{${name}}}: give it in vars`);
    const value = vars[name];
    return escape(value === null || value === undefined ? '' : String(value));
  });
}

/** A subject is one line: line breaks a variable brings are flattened (no header injection). */
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ').trim();

/** Only http(s) links become buttons: a variable cannot make a javascript: link. */
const linkable = (url: string) => /^https?:\/\//i.test(url);

function renderBlocks(blocks: readonly Block[], vars: Readonly<Record<string, VarValue>>): { html: string; text: string } {
  const html: string[] = [];
  const text: string[] = [];
  for (const block of blocks) {
    if (block.kind === 'p') {
      const paragraphs = block.text.split(/\n\s*\n/);
      for (const paragraph of paragraphs) {
        html.push(`<p style="margin:0 0 16px">${fill(paragraph, vars, escapeHtml).replace(/\n/g, '<br>')}</p>`);
        text.push(fill(paragraph, vars, (v) => v));
      }
    } else if (block.kind === 'facts') {
      const rows = block.rows.map(([label, value]) => [label, fill(value, vars, (v) => v)] as const).filter(([, value]) => value !== '');
      if (rows.length === 0) continue;
      html.push(
        `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:0 0 16px;border-collapse:collapse">${rows
          .map(
            ([label, value]) =>
              `<tr><td style="padding:4px 16px 4px 0;color:#6b7280">${escapeHtml(label)}</td><td style="padding:4px 0;font-weight:600">${escapeHtml(value)}</td></tr>`,
          )
          .join('')}</table>`,
      );
      text.push(rows.map(([label, value]) => `${label}: ${value}`).join('\n'));
    } else {
      const url = fill(block.url, vars, (v) => v).trim();
      if (!linkable(url)) continue;
      html.push(
        `<p style="margin:0 0 16px"><a href="${escapeHtml(url)}" style="display:inline-block;background:#f97316;color:#ffffff;text-decoration:none;padding:10px 18px;border-radius:6px;font-weight:600">${escapeHtml(block.label)}</a></p>`,
      );
      text.push(`${block.label}:\n${url}`);
    }
  }
  return { html: html.join('\n'), text: text.join('\n\n') };
}

function layout(subject: string, body: { html: string; text: string }, footer: Footer, kindLabel: string): RenderedEmail {
  const unsubscribeHtml = footer.unsubscribeUrl
    ? ` <a href="${escapeHtml(footer.unsubscribeUrl)}" style="color:#6b7280">Unsubscribe from these emails</a> ·`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#111827">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6;padding:24px 0"><tr><td align="center">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="max-width:600px;width:100%">
<tr><td style="padding:0 24px 16px;font-size:22px;font-weight:700;color:#f97316">Layerline</td></tr>
<tr><td style="background:#ffffff;border-radius:8px;padding:24px;font-size:15px;line-height:1.5">
${body.html}
</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;line-height:1.5;color:#6b7280">You get this email (${escapeHtml(kindLabel)}) because you have a Layerline account.${unsubscribeHtml} <a href="${escapeHtml(footer.settingsUrl)}" style="color:#6b7280">Email settings</a></td></tr>
</table></td></tr></table>
</body></html>`;
  const text = [
    body.text,
    '--',
    `Layerline. You get this email (${kindLabel}) because you have a Layerline account.`,
    ...(footer.unsubscribeUrl ? [`Unsubscribe from these emails: ${footer.unsubscribeUrl}`] : []),
    `Email settings: ${footer.settingsUrl}`,
  ].join('\n\n');
  return { subject, html, text: `${text}\n` };
}

/** A product email, ready to send. */
export function renderTemplate<T extends ProductTemplate>(template: T, vars: TemplateVars[T], footer: Footer): RenderedEmail {
  const definition = TEMPLATES[template];
  const values = vars as unknown as Record<string, VarValue>;
  const subject = oneLine(fill(definition.subject, values, (v) => v));
  return layout(subject, renderBlocks(definition.blocks, values), footer, EMAIL_TYPE_INFO[template].label);
}

/** An admin's email: their subject and plain-text message with `{{var}}`s, in the same layout. */
export function renderCustom(
  input: { subject: string; message: string; templateType: EmailTemplateType; vars: Readonly<Record<string, string | number>> },
  footer: Footer,
): RenderedEmail {
  const subject = oneLine(fill(input.subject, input.vars, (v) => v));
  return layout(subject, renderBlocks([p(input.message)], input.vars), footer, EMAIL_TYPE_INFO[input.templateType].label);
}
