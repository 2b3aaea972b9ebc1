// Command raw is a test plugin written on go-pdk alone, without the sdk:
// each export returns the configuration value of its name ("describe",
// "execute", …) as its output, or fails with the value of "<name>.error".
// Tests use it to make a plugin say anything, well-formed or not.
package main

func main() {}
