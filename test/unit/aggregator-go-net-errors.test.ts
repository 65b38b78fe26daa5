import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { goTransportErrorText, type TransportError } from '../../src/aggregator/go-net-errors.js';

/** Go's texts (net.OpError, crypto/tls, crypto/x509, io.EOF) for the failures Node reports by code. */

function nodeError(code: string, message: string, extra: Partial<TransportError> = {}): TransportError {
  return Object.assign(new Error(message), { code, ...extra });
}

const at = { host: '10.0.0.7', port: 8443 };

describe('goTransportErrorText', () => {
  it('writes a failed connect as net.OpError does', () => {
    assert.equal(goTransportErrorText(nodeError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.7:8443'), at), 'dial tcp 10.0.0.7:8443: connect: connection refused');
    assert.equal(goTransportErrorText(nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH 10.0.0.7:8443'), at), 'dial tcp 10.0.0.7:8443: connect: no route to host');
    assert.equal(goTransportErrorText(nodeError('ENETUNREACH', 'connect ENETUNREACH 10.0.0.7:8443'), at), 'dial tcp 10.0.0.7:8443: connect: network is unreachable');
    assert.equal(goTransportErrorText(nodeError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.7:8443'), at), 'dial tcp 10.0.0.7:8443: i/o timeout');
    assert.equal(goTransportErrorText(nodeError('ECONNREFUSED', 'connect ECONNREFUSED'), { host: 'fd00::7', port: 443 }), 'dial tcp [fd00::7]:443: connect: connection refused');
  });

  it('writes a certificate nobody vouches for as crypto/tls around x509.UnknownAuthorityError', () => {
    for (const code of ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']) {
      assert.equal(goTransportErrorText(nodeError(code, 'unable to verify'), at), 'tls: failed to verify certificate: x509: certificate signed by unknown authority');
    }
  });

  it('writes a certificate for other names as x509.HostnameError', () => {
    const host = 'wardle.wardle-system.svc';
    const wrong = (subjectaltname?: string): TransportError => nodeError('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames", subjectaltname === undefined ? {} : { cert: { subjectaltname } });
    assert.equal(goTransportErrorText(wrong('DNS:api.example.com, DNS:api, IP Address:10.0.0.1'), at, host), `tls: failed to verify certificate: x509: certificate is valid for api.example.com, api, not ${host}`);
    assert.equal(goTransportErrorText(wrong('IP Address:10.0.0.1'), at, host), `tls: failed to verify certificate: x509: certificate is not valid for any names, but wanted to match ${host}`);
    assert.equal(goTransportErrorText(wrong('DNS:a'), at, '10.0.0.7'), "tls: failed to verify certificate: x509: cannot validate certificate for 10.0.0.7 because it doesn't contain any IP SANs");
    assert.equal(goTransportErrorText(wrong('IP Address:10.0.0.1, IP Address:10.0.0.2'), at, '10.0.0.7'), 'tls: failed to verify certificate: x509: certificate is valid for 10.0.0.1, 10.0.0.2, not 10.0.0.7');
  });

  it('writes an alert from the server as a remote error, and a hang-up as EOF', () => {
    assert.equal(goTransportErrorText(nodeError('ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'sslv3 alert bad certificate'), at), 'remote error: tls: bad certificate');
    assert.equal(goTransportErrorText(nodeError('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'tlsv1 alert unknown ca'), at), 'remote error: tls: unknown certificate authority');
    assert.equal(goTransportErrorText(nodeError('ECONNRESET', 'socket hang up'), at), 'EOF');
    assert.equal(goTransportErrorText(nodeError('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'), at), 'EOF');
  });

  it('keeps Node\'s text for what it cannot word as Go', () => {
    assert.equal(goTransportErrorText(nodeError('ECONNRESET', 'read ECONNRESET'), at), 'read ECONNRESET');
    assert.equal(goTransportErrorText(nodeError('CERT_HAS_EXPIRED', 'certificate has expired'), at), 'certificate has expired');
  });
});
