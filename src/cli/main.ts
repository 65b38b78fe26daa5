#!/usr/bin/env node
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { RuntimeConfigError } from '../api/catalog.js';
import { AuthorizationConfigError } from '../authz/config-file.js';
import { InClusterWebhookError } from '../authz/webhook.js';
import { PolicyFileError } from '../authz/abac.js';
import { ApiServer } from '../server/apiserver.js';
import { AuthenticationSetupError } from '../server/token-authn.js';
import { AdmissionSetupError } from '../server/admission-setup.js';
import { capstanPackageVersion, versionInfo } from '../server/version.js';
import { configFromFlags, FLAG_SPECS } from '../server/options.js';
import { FlagError, usage } from '../server/flags.js';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { credentialCommand, CREDENTIAL_FLAGS, kubeconfigCommand, KUBECONFIG_FLAGS } from './credential.js';
import { tokenCommand as bootstrapTokenCommand, TOKEN_FLAGS } from './token.js';

const HELP = `Capstan: a Kubernetes-compatible API server.

Usage:
  capstan serve [flags]
  capstan kubeconfig --service-account <namespace>/<name> [flags]
  capstan credential --service-account <namespace>/<name> [flags]
  capstan token create [token] | list | delete <id or token>... [flags]
  capstan version

Flags for serve:
${usage(FLAG_SPECS)}

Flags for kubeconfig (a kubeconfig whose user gets tokens of the ServiceAccount through \`capstan credential\`):
${usage(KUBECONFIG_FLAGS)}

Flags for credential (the client credential plugin kubectl runs: prints an ExecCredential):
${usage(CREDENTIAL_FLAGS)}

Flags for token (kubeadm's bootstrap token commands):
${usage(TOKEN_FLAGS)}
`;

async function serve(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = configFromFlags(argv);
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`Error: ${err.message}\nRun 'capstan serve --help' for usage.\n`);
      return 2;
    }
    throw err;
  }
  // pflag writes its deprecation notices as it parses.
  for (const w of parsed.warnings) process.stderr.write(`${w}\n`);
  if (parsed.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (parsed.args.length > 0) {
    process.stderr.write(`Error: unknown command "${parsed.args[0]}" for "capstan serve"\n`);
    return 2;
  }
  const { config } = parsed;
  let server: ApiServer;
  try {
    server = new ApiServer({ config, lastResort: true });
  } catch (err) {
    // kube-apiserver refuses an unusable --runtime-config before it starts serving.
    if (err instanceof RuntimeConfigError) {
      process.stderr.write(`Error: ${err.message}\nRun 'capstan serve --help' for usage.\n`);
      return 2;
    }
    // kube-apiserver refuses an --authorization-config or --authorization-policy-file that does not load.
    if (err instanceof AuthorizationConfigError || err instanceof PolicyFileError || err instanceof InClusterWebhookError) {
      process.stderr.write(`Error: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  try {
    await server.start();
  } catch (err) {
    // kube-apiserver exits with its authentication setup error before serving.
    if (err instanceof AuthenticationSetupError || err instanceof AdmissionSetupError) process.stderr.write(`Error: ${err.message}\n`);
    else process.stderr.write(`capstan: failed to start: ${(err as Error).message}\n`);
    await server.stop().catch(() => undefined);
    return 1;
  }
  const store = {
    sqlite: `sqlite ${join(config.dataDir ?? '', 'capstan.db')}`,
    etcd3: `etcd3 ${config.etcdServers.join(',')} ${config.etcdPrefix}`,
    memory: 'memory',
  }[config.storageBackend];
  // Handlers first: whoever reads the ready line may signal at once (a loaded machine can pause us right after the write).
  const stopped = new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (sig: NodeJS.Signals): void => {
      if (stopping) {
        process.stderr.write(`capstan: ${sig} again, exiting now\n`);
        process.exit(1);
      }
      stopping = true;
      process.stderr.write(`capstan: ${sig} received, shutting down\n`);
      void server.stop().then(resolve, resolve);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  process.stdout.write(
    `capstan ${capstanPackageVersion()} (Kubernetes ${versionInfo().gitVersion}) ready at ${server.url} ` +
      // performance.now() counts from process start, so module loading is included.
      `in ${Math.round(performance.now())}ms; store: ${store}; kubeconfig: ${config.adminKubeconfig}\n`,
  );
  await stopped;
  return 0;
}

/** The credential plugin and the kubeconfig that runs it; flag errors exit 2, failures 1 (kubectl shows standard error). */
async function tokenCommand(command: 'credential' | 'kubeconfig', argv: string[]): Promise<number> {
  try {
    if (command === 'credential') {
      process.stdout.write(await credentialCommand(argv, process.env, process.cwd()));
      return 0;
    }
    const { text, output } = kubeconfigCommand(argv, process.cwd(), { node: process.execPath, main: fileURLToPath(import.meta.url) });
    if (output) writeFileSync(output, text, { mode: 0o600 });
    else process.stdout.write(text);
    return 0;
  } catch (err) {
    process.stderr.write(`Error: ${(err as Error).message}\n`);
    return err instanceof FlagError ? 2 : 1;
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'credential':
    case 'kubeconfig':
      return tokenCommand(command, rest);
    case 'token':
      try {
        process.stdout.write(await bootstrapTokenCommand(rest, process.cwd()));
        return 0;
      } catch (err) {
        process.stderr.write(`Error: ${(err as Error).message}\n`);
        return err instanceof FlagError ? 2 : 1;
      }
    case 'version':
      process.stdout.write(`${JSON.stringify(versionInfo(), null, 2)}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(HELP);
      return 0;
    default:
      process.stderr.write(`Error: unknown command "${command}" for "capstan"\nRun 'capstan --help' for usage.\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`capstan: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
