import { describe, expect, it } from 'vitest';
import { renderCustom, renderTemplate } from './email-templates.ts';
import { createUnsubscribeToken, verifyUnsubscribeToken } from './unsubscribe-token.ts';

const footer = { unsubscribeUrl: 'https://print.example.com/unsubscribe?token=abc', settingsUrl: 'https://print.example.com/account-settings' };
const paymentVars = {
  orderNumber: '#1042',
  amount: '$18.40',
  reason: 'Your card was declined',
  actionUrl: 'https://print.example.com/orders?order=1',
  billingUrl: 'https://print.example.com/account-settings#billing',
};

describe('email templates', () => {
  it('renders a product email to HTML and text, with its unsubscribe and settings links', () => {
    const email = renderTemplate('payment_failed', paymentVars, footer);
    expect(email.subject).toBe('Payment failed for order #1042');
    expect(email.html).toContain('We could not charge your card $18.40 for order #1042');
    expect(email.html).toContain('href="https://print.example.com/account-settings#billing"');
    expect(email.html).toContain('href="https://print.example.com/unsubscribe?token=abc"');
    expect(email.text).toContain('Reason: Your card was declined');
    expect(email.text).toContain('Update your card:\nhttps://print.example.com/account-settings#billing');
    expect(email.text).toContain('Unsubscribe from these emails: https://print.example.com/unsubscribe?token=abc');
    expect(email.text).toContain('Email settings: https://print.example.com/account-settings');
  });

  it('escapes every variable in the HTML, keeps the text literal, and flattens the subject to one line', () => {
    const email = renderTemplate('order_on_hold', { orderNumber: '<b>1</b>\r\nBcc: x@evil.test', reason: '"quoted" & <i>odd</i>', orderUrl: 'https://x.test/o?a=1&b=2' }, footer);
    expect(email.subject).toBe('Action needed: order <b>1</b> Bcc: x@evil.test is on hold');
    expect(email.html).not.toContain('<b>1</b>');
    expect(email.html).toContain('&lt;b&gt;1&lt;/b&gt;');
    expect(email.html).toContain('&quot;quoted&quot; &amp; &lt;i&gt;odd&lt;/i&gt;');
    expect(email.html).toContain('href="https://x.test/o?a=1&amp;b=2"');
    expect(email.text).toContain('Reason: "quoted" & <i>odd</i>');
  });

  it('leaves out a button whose link is empty or not http(s), and a fact with no value', () => {
    const email = renderTemplate('payment_failed', { ...paymentVars, actionUrl: 'javascript:alert(1)', reason: null }, footer);
    expect(email.html).not.toContain('javascript:');
    expect(email.html).not.toContain('See what happened');
    expect(email.text).not.toContain('Reason:');
    expect(renderTemplate('payment_failed', { ...paymentVars, actionUrl: '' }, footer).text).not.toContain('See what happened');
  });

  it('tells a refund and a price adjustment with their amount and reason', () => {
    const vars = { orderNumber: '#1042', amount: '$0.06', reason: 'The exact quote changed the print cost from $2.70 (estimated) to $2.64', billingUrl: 'https://print.example.com/billing' };
    const refund = renderTemplate('order_refunded', { ...vars, refundedTo: 'your card' }, footer);
    expect(refund.subject).toBe('Refund of $0.06 for order #1042');
    expect(refund.text).toContain('Reason: The exact quote changed the print cost from $2.70 (estimated) to $2.64');
    expect(refund.html).toContain('href="https://print.example.com/billing"');
    expect(refund.text).toContain('Refunded to: your card');
    const adjusted = renderTemplate('order_price_adjusted', { ...vars, amount: '$0.75' }, footer);
    expect(adjusted.subject).toBe('Order #1042: $0.75 more after its exact quote');
    expect(adjusted.text).toContain('we charged the difference of $0.75 to your card');
  });

  it('has no unsubscribe link when there is no account to unsubscribe', () => {
    const email = renderCustom({ subject: 'Hi', message: 'Hello', templateType: 'custom', vars: {} }, { ...footer, unsubscribeUrl: null });
    expect(email.text).not.toContain('Unsubscribe');
    expect(email.html).not.toContain('Unsubscribe');
  });

  it('renders an admin’s message: paragraphs, line breaks, and an unknown variable refused', () => {
    const email = renderCustom({ subject: 'News for {{name}}', message: 'Hi {{name}},\nline two\n\nSecond {{n}}', templateType: 'custom', vars: { name: 'Ada', n: 2 } }, footer);
    expect(email.subject).toBe('News for Ada');
    expect(email.html).toContain('Hi Ada,<br>line two</p>');
    expect(email.html).toContain('Second 2</p>');
    expect(email.text.startsWith('Hi Ada,\nline two\n\nSecond 2')).toBe(true);
    expect(() => renderCustom({ subject: 'x', message: 'Hi {{nmae}}', templateType: 'custom', vars: { name: 'Ada' } }, footer)).toThrow('{{nmae}}');
  });
});

describe('unsubscribe tokens', () => {
  const secret = 'a'.repeat(32);

  it('name the user and the kind of email, and only verify with the same secret', () => {
    const token = createUnsubscribeToken(secret, { userId: 'user_123', templateType: 'weekly_summary' });
    expect(verifyUnsubscribeToken(secret, token)).toEqual({ userId: 'user_123', templateType: 'weekly_summary' });
    expect(verifyUnsubscribeToken('b'.repeat(32), token)).toBeNull();
  });

  it('refuse any change: another kind, another user, a cut signature, garbage', () => {
    const token = createUnsubscribeToken(secret, { userId: 'user_123', templateType: 'weekly_summary' });
    const [user, , mac] = token.split('.');
    expect(verifyUnsubscribeToken(secret, `${user}.welcome.${mac}`)).toBeNull();
    expect(verifyUnsubscribeToken(secret, `${Buffer.from('user_124').toString('base64url')}.weekly_summary.${mac}`)).toBeNull();
    expect(verifyUnsubscribeToken(secret, token.slice(0, -2))).toBeNull();
    expect(verifyUnsubscribeToken(secret, `${user}.not_a_kind.${mac}`)).toBeNull();
    expect(verifyUnsubscribeToken(secret, 'nonsense')).toBeNull();
  });
});
