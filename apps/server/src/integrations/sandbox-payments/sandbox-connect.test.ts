import { describe, expect, it } from 'vitest';
import { PaymentRejectedError } from '../../modules/payments/payment-provider.ts';
import { createSandboxPayments } from './sandbox-payments.ts';

/** The sandbox's Connect half: accounts, its own onboarding page, the tester's outcomes and recorded transfers. */
describe('sandbox Connect', () => {
  it('makes the same account for the same key, in any process', async () => {
    const first = await createSandboxPayments().createConnectedAccount({
      userId: 'u1',
      email: 'a@example.com',
      idempotencyKey: 'affiliate:u1:connect-account',
    });
    const again = await createSandboxPayments().createConnectedAccount({
      userId: 'u1',
      email: 'a@example.com',
      idempotencyKey: 'affiliate:u1:connect-account',
    });
    expect(first.accountId).toMatch(/^acct_sandbox_[0-9a-f]+$/);
    expect(again.accountId).toBe(first.accountId);
  });

  it('links to its own onboarding page, on the public URL when there is one', async () => {
    const local = createSandboxPayments();
    const { accountId } = await local.createConnectedAccount({
      userId: 'u2',
      email: 'b@example.com',
      idempotencyKey: 'k2',
    });
    expect((await local.createAccountLink({ accountId, returnUrl: 'x', refreshUrl: 'y' })).url).toBe(
      `/affiliate-links?connect=sandbox&account=${accountId}`,
    );
    const hosted = createSandboxPayments({ publicUrl: 'https://print.example.com/' });
    expect((await hosted.createAccountLink({ accountId, returnUrl: 'x', refreshUrl: 'y' })).url).toBe(
      `https://print.example.com/affiliate-links?connect=sandbox&account=${accountId}`,
    );
    await expect(
      hosted.createAccountLink({ accountId: 'acct_real', returnUrl: 'x', refreshUrl: 'y' }),
    ).rejects.toMatchObject({ code: 'resource_missing', status: 404 });
  });

  it('is pending until the tester completes onboarding; restricted when a detail fails', async () => {
    const sandbox = createSandboxPayments();
    const { accountId } = await sandbox.createConnectedAccount({
      userId: 'u3',
      email: 'c@example.com',
      idempotencyKey: 'k3',
    });
    expect(await sandbox.getConnectedAccount(accountId)).toMatchObject({
      detailsSubmitted: false,
      payoutsEnabled: false,
    });
    expect(await sandbox.completeTestOnboarding!(accountId, 'restricted')).toMatchObject({
      detailsSubmitted: true,
      payoutsEnabled: false,
      requirementsDue: ['external_account'],
    });
    expect(await sandbox.completeTestOnboarding!(accountId, 'complete')).toMatchObject({
      detailsSubmitted: true,
      payoutsEnabled: true,
      requirementsDue: [],
    });
    expect(await sandbox.getConnectedAccount(accountId)).toMatchObject({ payoutsEnabled: true });
  });

  it('transfers only to an onboarded account, once per key, and records each', async () => {
    const sandbox = createSandboxPayments();
    const { accountId } = await sandbox.createConnectedAccount({
      userId: 'u4',
      email: 'd@example.com',
      idempotencyKey: 'k4',
    });
    const transfer = {
      accountId,
      amountCents: 1500,
      currency: 'USD',
      idempotencyKey: 'payout:p1',
      metadata: { payout_id: 'p1' },
    };
    await expect(sandbox.createTransfer(transfer)).rejects.toMatchObject({
      code: 'insufficient_capabilities_for_transfer',
    });
    await sandbox.completeTestOnboarding!(accountId, 'complete');
    const first = await sandbox.createTransfer(transfer);
    const again = await sandbox.createTransfer(transfer);
    expect(again.transferId).toBe(first.transferId);
    expect(sandbox.transfers).toEqual([
      {
        transferId: first.transferId,
        accountId,
        amountCents: 1500,
        currency: 'usd',
        idempotencyKey: 'payout:p1',
        metadata: { payout_id: 'p1' },
      },
    ]);
    await expect(sandbox.createTransfer({ ...transfer, amountCents: 1600 })).rejects.toBeInstanceOf(
      PaymentRejectedError,
    );
    await expect(
      sandbox.createTransfer({ ...transfer, idempotencyKey: 'payout:p2', amountCents: 0 }),
    ).rejects.toMatchObject({ code: 'parameter_invalid_integer' });
  });
});
