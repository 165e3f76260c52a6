import { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { Client, FTPError } from 'basic-ftp';
import { failed, succeeded, type PrinterResult } from '../../modules/production/printer-driver.ts';
import { checkPin, CertificateChangedError, type CertificatePins } from './bambulab-tls.ts';

/**
 * Sends a file to a Bambu Lab printer's SD card: FTPS with implicit TLS on port 990, user `bblp`
 * and the access code (shared/contracts/printers/bambulab.md §4; OpenBambuAPI ftp.md). basic-ftp
 * does PROT P and reuses the control connection's TLS session for the data connection, as the
 * printer requires. The printer does not close TLS cleanly after STOR and may answer 426 though
 * the file arrived (ha-bambulab client.py L294–345), so the upload is judged by SIZE afterwards.
 * The certificate is checked against the pin before the access code is sent.
 */
export async function uploadOverFtps(options: {
  host: string;
  port: number;
  serial: string;
  accessCode: string;
  pins: CertificatePins;
  remoteName: string;
  bytes: Uint8Array;
  timeoutMs: number;
}): Promise<PrinterResult<void>> {
  const client = new Client(options.timeoutMs);
  const where = `${options.host}:${options.port}`;
  try {
    await client.connectImplicitTLS(options.host, options.port, { servername: options.serial, rejectUnauthorized: false });
    await checkPin(client.ftp.socket as TLSSocket, options.pins);
    await client.login('bblp', options.accessCode);
    await client.useDefaultSettings();
    try {
      await client.uploadFrom(Readable.from([Buffer.from(options.bytes)]), options.remoteName);
    } catch (error) {
      if (!(error instanceof FTPError && error.code === 426)) throw error;
    }
    const size = await client.size(options.remoteName);
    if (size !== options.bytes.length)
      return failed('bad_answer', `The printer stored ${size} of ${options.bytes.length} bytes of ${options.remoteName} (FTPS)`);
    return succeeded(undefined);
  } catch (error) {
    if (error instanceof CertificateChangedError) return failed('not_allowed', error.message);
    if (error instanceof FTPError) {
      if (error.code === 530) return failed('auth_refused', `The printer refused the LAN access code (FTPS ${where}: ${error.message})`);
      return failed('rejected', `The printer refused the upload (FTPS ${where}: ${error.message})`);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/timeout/i.test(message)) return failed('timeout', `No answer from ${where} (FTPS): ${message}`);
    return failed('unreachable', `Could not send the file to ${where} (FTPS): ${message}`);
  } finally {
    client.close();
  }
}
