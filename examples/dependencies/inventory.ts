/** The shop's stock (shared by the dependency tutorials). A Map, so a test can count lookups. */
export const INVENTORY: ReadonlyMap<string, number> = new Map([
  ['Dune', 7],
  ['Neuromancer', 0],
])

/** What `checkStock` resolves to. */
export interface Stock {
  title: string
  copies: number
}
