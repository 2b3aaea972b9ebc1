package runtime

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE
