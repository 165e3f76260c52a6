import { Duplex } from 'node:stream';
import { connect, type TLSSocket } from 'node:tls';

/**
 * The printer's certificate, trusted on first use and pinned (docs/printers.md, "Bambu Lab").
 * A real printer's certificate is issued by Bambu Lab's own CA for CN = its serial, not for its IP
 * (OpenBambuAPI tls.md L20–50), so the usual checks cannot pass; ha-bambulab and FDM Monster turn
 * them off altogether. Layerline instead remembers the SHA-256 of the certificate it saw first and
 * refuses any other until an admin trusts the printer again. The check runs before a byte of MQTT
 * or FTP is sent, so the access code never reaches a machine that is not the printer.
 */
export interface CertificatePins {
  /** The pinned fingerprint (hex SHA-256, as node:tls writes fingerprint256), or null before first use. */
  pinned(): Promise<string | null>;
  pin(sha256: string): Promise<void>;
}

export class CertificateChangedError extends Error {
  readonly code = 'BAMBU_CERTIFICATE_CHANGED';
  readonly seen: string;
  constructor(seen: string) {
    super(
      `The printer showed a certificate other than the one pinned on first contact (now ${seen}): if the printer was ` +
        'replaced or reset, trust its new certificate on the printers page; otherwise something else answers at its address',
    );
    this.seen = seen;
  }
}

/** Checks the socket's certificate against the pin (pinning it on first use); throws CertificateChangedError. */
export async function checkPin(socket: TLSSocket, pins: CertificatePins): Promise<void> {
  const seen = socket.getPeerCertificate().fingerprint256;
  if (!seen) throw new CertificateChangedError('no certificate');
  const pinned = await pins.pinned();
  if (pinned === null) {
    await pins.pin(seen);
    // Two first contacts at once (MQTT and FTPS): the pin that was stored is the one that counts.
    if ((await pins.pinned()) !== seen) throw new CertificateChangedError(seen);
  } else if (pinned !== seen) throw new CertificateChangedError(seen);
}

/**
 * A TLS connection for mqtt.js (its stream builder) whose writes wait until the certificate is
 * checked: mqtt.js writes CONNECT, with the access code, as soon as it has the stream.
 */
export function pinnedTlsStream(options: {
  host: string;
  port: number;
  /** The serial: the name in the printer's certificate (SNI). */
  servername: string;
  pins: CertificatePins;
}): Duplex {
  const socket = connect({ host: options.host, port: options.port, servername: options.servername, rejectUnauthorized: false });
  let checked: Promise<void> | null = null;
  const verified = new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => {
      checked = checkPin(socket, options.pins);
      checked.then(resolve, reject);
    });
    socket.once('close', () => reject(new Error('closed before the TLS handshake')));
  });
  verified.catch(() => undefined);
  const stream = new Duplex({
    write(chunk, encoding, callback) {
      verified.then(
        () => socket.write(chunk, encoding, callback),
        (error: Error) => callback(error),
      );
    },
    read() {
      socket.resume();
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  verified.catch((error: Error) => stream.destroy(error));
  socket.on('data', (data: Buffer) => {
    if (!stream.push(data)) socket.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('error', (error) => stream.destroy(error));
  socket.on('close', () => stream.destroy());
  return stream;
}
