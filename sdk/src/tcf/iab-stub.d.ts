/** IAB Tech Lab's CMP API stub (lib/stub.js): CommonJS, it exports the function that installs it. */
declare module '@iabtechlabtcf/stub' {
  const installStub: () => void;
  export default installStub;
}
