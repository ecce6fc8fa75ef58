// Type-checks snippets of documentation (the SDK README's examples, the reference's code
// samples) with the TypeScript compiler, strict, each as its own module (top-level await
// allowed) placed in e2e/, where `@vrp/sdk` resolves to the SDK's sources.
import { join } from 'node:path';
import ts from 'typescript';

export function compileErrors(sources: string[]): string[] {
  const files = new Map(sources.map((code, i) => [join(__dirname, `../__snippet_${i}.ts`), code]));
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(__dirname, '../../node_modules/@types')],
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    const code = files.get(name);
    return code !== undefined ? ts.createSourceFile(name, code, version) : getSourceFile(name, version, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const program = ts.createProgram([...files.keys()], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : '';
    return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/** Transpiles a snippet to CommonJS (for running it inside an async function). */
export function toCommonJs(code: string): string {
  return ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText;
}
