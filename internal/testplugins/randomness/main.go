// Command randomness is a test plugin for instance images: its draw
// export reports what a fresh instance's random sources give (crypto/rand,
// math/rand and math/rand/v2's top-level functions, map iteration order,
// hash/maphash, select), what generators seeded with constants at init
// give, and a value init drew from crypto/rand (the same in every instance
// of one image: package init runs once per plugin load). Its init reads
// /image-test/x if that directory is granted.
package main

func main() {}
