package runtime

import (
	"os"
	goruntime "runtime"
	"strings"
)

// ImageMemory is how a new instance's linear memory gets its plugin's
// image (docs/runtime.md, "Images").
type ImageMemory string

const (
	// ImageMemoryAuto chooses by platform: ImageMemoryCopy where the
	// kernel backs memories with huge pages on request, ImageMemoryMap on
	// Linux without them, ImageMemoryCopy elsewhere.
	ImageMemoryAuto ImageMemory = ""
	// ImageMemoryCopy copies the image's non-zero pages into each new
	// memory (huge pages where the kernel has them): the fastest calls,
	// about 4 MiB resident per live Go-plugin instance.
	ImageMemoryCopy ImageMemory = "copy"
	// ImageMemoryMap maps the image copy-on-write into each new memory
	// (Linux; elsewhere it copies): instances share the pages they do not
	// write, about 0.3 MiB resident per Go-plugin instance, at 4 KiB pages.
	ImageMemoryMap ImageMemory = "map"
)

// thpEnabledFile says whether the kernel gives transparent huge pages to
// memories that ask for them (madvise) or to all (always).
const thpEnabledFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// autoImageMemory is ImageMemoryAuto's choice for this system
// (RATIONALE.md, "Why are images copied where there are huge pages, and
// mapped copy-on-write where there are none?").
func autoImageMemory() ImageMemory {
	if goruntime.GOOS != "linux" {
		return ImageMemoryCopy
	}
	b, err := os.ReadFile(thpEnabledFile)
	if err != nil {
		return ImageMemoryMap
	}
	return thpChoice(string(b))
}

// thpChoice reads the kernel's THP setting ("always [madvise] never").
func thpChoice(setting string) ImageMemory {
	if strings.Contains(setting, "[always]") || strings.Contains(setting, "[madvise]") {
		return ImageMemoryCopy
	}
	return ImageMemoryMap
}

// learnCloses is how many closed instances are learnt from, before any is
// populated (a populated page would look written). A page is hot when
// most of them used it: one unusual call (or a hostile one writing all
// its memory) does not make every later instance hold its pages; a
// plugin whose first calls mostly write everything makes every later
// instance populate at most the whole image, what a copy costs. Only
// the image's pages are learnt; memory grown past it is not.
const learnCloses = 8

// maxSpareGrowth is how far past the image a memory may have grown and
// still be kept: one that grew more is unmapped, so that a spare holds
// no more than the image and a little, and its reset stays short.
const maxSpareGrowth = 4 << 20
