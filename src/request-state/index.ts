export * from './codec.ts'
export * from './errors.ts'
export * from './security.ts'
