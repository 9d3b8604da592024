// Writes src/contract.ts: the contract's types that the client names, spelled out as plain TypeScript.
//
// The server's contract (src/contract, src/errors at the repository's root) is the one source of the shapes:
// each is a TypeBox schema whose type is `Static<typeof Schema>`. The client may not import it, since the
// package installs without the server and without TypeBox. So at each build the compiler reads the contract,
// resolves every type below to its structure (objects, unions of literals, arrays), and this writes that
// structure out; the file is not in git, so there is no second copy of a shape to drift.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER_SOURCE = path.join(HERE, '..', '..', 'src');
const OUTPUT = path.join(HERE, 'src', 'contract.ts');

/** The types the client uses, by the name they keep in the package, as written against the server's modules. */
const TYPES = {
  Category: 'contract.Category',
  NewCategory: 'contract.NewCategory',
  Pet: 'contract.Pet',
  NewPet: 'contract.NewPet',
  PetStatus: 'contract.PetStatus',
  PetQuery: 'contract.PetQuery',
  Order: 'contract.Order',
  NewOrder: 'contract.NewOrder',
  OrderStatus: 'contract.OrderStatus',
  OrderQuery: 'contract.OrderQuery',
  KeyInfo: 'contract.KeyInfo',
  KeyUsageHistory: 'contract.KeyUsageHistory',
  KeyRotation: 'contract.KeyRotation',
  RotatedKey: 'contract.RotatedKey',
  RevokedKey: 'contract.RevokedKey',
  LoggedRequest: 'contract.LoggedRequest',
  OwnRequestQuery: 'contract.OwnRequestQuery',
  EventType: 'contract.EventType',
  // The events' `data`: the admin API's shapes of a key and a domain, named so that each event says which.
  ApiKey: 'contract.ApiKey',
  Domain: 'contract.Domain',
  // Every event as the admin document's `webhooks` publishes it (src/contract/webhook-events.ts).
  WebhookEvent: 'contract.WebhookEvent',
  ErrorCode: 'errors.ErrorCode',
  OperationId: 'contract.OperationId',
  // Each operation's method and path as literals, so that the client's route table is checked against them.
  OperationRoutes:
    "{ [Id in contract.OperationId]: Pick<Extract<(typeof contract.OPERATIONS)[number], { operationId: Id }>, 'method' | 'path'> }",
};

const DOCS = {
  ErrorCode: 'Every `code` of an Error body the server answers: its closed set.',
  OperationId: 'The operations of `/v1`, by their `operationId`.',
  OperationRoutes: 'The method and path of each operation, as the contract gives them.',
  EventType: 'The types of the events that webhooks deliver.',
  ApiKey: 'An API key as the admin API shows it: the `data` of the key events.',
  Domain: 'A custom domain as the admin API shows it: the `data` of the domain events.',
  WebhookEvent: 'A verified event; `type` tells which, and narrows `data`.',
};

// A module beside the server's sources, so that its imports resolve as theirs do; it exists in memory only.
const ENTRY = path.join(SERVER_SOURCE, '__client-contract-types__.ts');
const entrySource = [
  "import type * as contract from './contract/index.js';",
  "import type * as errors from './errors/index.js';",
  ...Object.entries(TYPES).map(([name, type]) => `export type ${name} = ${type};`),
].join('\n');

const options = {
  target: ts.ScriptTarget.ES2023,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
};
const host = ts.createCompilerHost(options);
const readSource = host.getSourceFile.bind(host);
host.getSourceFile = (file, language, ...rest) =>
  path.resolve(file) === ENTRY
    ? ts.createSourceFile(file, entrySource, language)
    : readSource(file, language, ...rest);
const fileExists = host.fileExists.bind(host);
host.fileExists = (file) => path.resolve(file) === ENTRY || fileExists(file);

const program = ts.createProgram([ENTRY], options, host);
const problems = ts.getPreEmitDiagnostics(program);
if (problems.length > 0) {
  throw new Error(ts.formatDiagnostics(problems, host));
}
const checker = program.getTypeChecker();
const entry = program.getSourceFile(ENTRY);

/** The declared type of each alias of the entry, by name. */
const declared = new Map();
for (const statement of entry.statements)
  if (ts.isTypeAliasDeclaration(statement))
    declared.set(statement.name.text, checker.getTypeAtLocation(statement.name));
/** A nested type that is one of the named ones is written by its name (a Pet's `status` is a PetStatus). */
const named = new Map([...declared].map(([name, type]) => [type, name]));

const INDENT = '  ';
const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

/** The type written out, `depth` levels into an object literal; anything unforeseen stops the build. */
function write(type, depth, top = false) {
  if (!top && named.has(type)) return named.get(type);
  const flags = type.flags;
  if (flags & ts.TypeFlags.StringLiteral) return JSON.stringify(type.value);
  if (flags & ts.TypeFlags.NumberLiteral) return String(type.value);
  if (
    flags &
    (ts.TypeFlags.String |
      ts.TypeFlags.Number |
      ts.TypeFlags.Boolean |
      ts.TypeFlags.BooleanLiteral |
      ts.TypeFlags.Null |
      ts.TypeFlags.Undefined |
      ts.TypeFlags.Unknown |
      ts.TypeFlags.Never)
  )
    return checker.typeToString(type);
  if (type.isUnion()) {
    const parts = [];
    let booleans = 0;
    for (const member of type.types) {
      if (member.flags & ts.TypeFlags.BooleanLiteral) booleans += 1;
      else parts.push(write(member, depth));
    }
    // The compiler keeps `boolean` as `true | false`.
    if (booleans === 2) parts.push('boolean');
    else if (booleans === 1) throw new Error('a lone boolean literal in a union');
    return parts.join(' | ');
  }
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type);
    const inner = write(element, depth);
    return /[|&\s]/.test(inner) && !inner.startsWith('{') ? `(${inner})[]` : `${inner}[]`;
  }
  if (flags & ts.TypeFlags.Object || type.isIntersection()) {
    if (checker.isTupleType(type) || type.getCallSignatures().length > 0)
      throw new Error(`cannot write ${checker.typeToString(type)}`);
    const pad = INDENT.repeat(depth + 1);
    const lines = [];
    for (const info of checker.getIndexInfosOfType(type))
      lines.push(`${pad}[key: ${write(info.keyType, depth + 1)}]: ${write(info.type, depth + 1)};`);
    for (const property of checker.getPropertiesOfType(type)) {
      const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
      let value = checker.getTypeOfSymbol(property);
      // Under exactOptionalPropertyTypes an optional property reads as `T | undefined`; it is written `?: T`.
      if (optional && value.isUnion()) {
        const present = value.types.filter((member) => !(member.flags & ts.TypeFlags.Undefined));
        if (present.length !== value.types.length) value = checker.getUnionType(present);
      }
      lines.push(`${pad}${key(property.name)}${optional ? '?' : ''}: ${write(value, depth + 1)};`);
    }
    if (lines.length === 0) return '{}';
    return `{\n${lines.join('\n')}\n${INDENT.repeat(depth)}}`;
  }
  throw new Error(`cannot write ${checker.typeToString(type)}`);
}

const declarations = [...declared].map(([name, type]) => {
  const doc = DOCS[name] ?? `The contract's \`${name}\`.`;
  return `/** ${doc} */\nexport type ${name} = ${write(type, 0, true)};`;
});
writeFileSync(
  OUTPUT,
  [
    '// Written by contract-types.mjs at each build from the server\u2019s contract (src/contract, src/errors);',
    '// not in git, and not to be edited: change the contract, then build.',
    '',
    declarations.join('\n\n'),
    '',
  ].join('\n'),
);
