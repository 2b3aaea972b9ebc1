package runtime

import "fmt"

// MemoryGrantError is a module whose memory at start is larger than the
// plugin's memory grant (Grants.MemoryPages): it is refused at load.
type MemoryGrantError struct {
	Plugin string
	Need   uint32 // the module's minimum, in 64 KiB pages
	Grant  uint32 // Grants.MemoryPages
}

func (e *MemoryGrantError) Error() string {
	return fmt.Sprintf("plugin %s: the module needs %d pages of memory at start, more than its grant of %d", e.Plugin, e.Need, e.Grant)
}
