//go:build !unix

package runtime

import "os"

// idOf: without inodes, nothing is protected (protectedIn finds no root).
func idOf(os.FileInfo) (fileID, bool) { return fileID{}, false }
