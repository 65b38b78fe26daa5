// The example's Jest suite: native ESM (node --experimental-vm-modules), the compiled copy in dist/, no transform.
export default {
  rootDir: '../../dist/examples/widget-operator',
  testMatch: ['<rootDir>/test/*.jest.js'],
  transform: {},
  testEnvironment: 'node',
  testTimeout: 60_000,
};
