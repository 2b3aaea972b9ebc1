package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"hash/maphash"
	randv1 "math/rand"
	randv2 "math/rand/v2"
	"os"
	"strconv"

	"github.com/extism/go-pdk"
)

// Generators seeded with constants at init: every instance must see the
// same sequence from them, image or not.
var (
	constV1 = randv1.New(randv1.NewSource(42))
	constV2 = randv2.New(randv2.NewChaCha8([32]byte{'w', 'a', 's', 'm', 'a', 'g', 'e', 'n', 't'}))
	initKey = make([]byte, 16)
	initMap = map[string]int{}
)

func init() {
	// A file read at init, when /image-test is granted: an image could
	// not replay it, so the host must run init in every instance.
	_, _ = os.ReadFile("/image-test/x")
	rand.Read(initKey)
	for i := range 64 {
		initMap[strconv.Itoa(i)] = i
	}
	// Draw at init too, so that the runtime's generators have moved.
	_ = randv2.Uint64()
	_ = randv1.Int63()
}

// Draw is what one call reports.
type Draw struct {
	Crypto   string   `json:"crypto"`
	V1       []int64  `json:"v1"`
	V2       []uint64 `json:"v2"`
	MapOrder []string `json:"mapOrder"`
	InitMap  []string `json:"initMapOrder"`
	MapHash  uint64   `json:"maphash"`
	Select   []int    `json:"select"`
	ConstV1  int64    `json:"constV1"`
	ConstV2  uint64   `json:"constV2"`
	InitKey  string   `json:"initKey"`
}

//go:wasmexport draw
func draw() int32 {
	var d Draw
	b := make([]byte, 16)
	rand.Read(b)
	d.Crypto = hex.EncodeToString(b)
	for range 4 {
		d.V1 = append(d.V1, randv1.Int63())
		d.V2 = append(d.V2, randv2.Uint64())
	}
	m := map[string]int{}
	for i := range 64 {
		m[strconv.Itoa(i)] = i
	}
	for k := range m {
		d.MapOrder = append(d.MapOrder, k)
	}
	for k := range initMap {
		d.InitMap = append(d.InitMap, k)
	}
	d.MapHash = maphash.String(maphash.MakeSeed(), "wasmagent")
	a, c := make(chan int, 64), make(chan int, 64)
	for range 64 {
		a <- 0
		c <- 1
	}
	for range 64 {
		select {
		case v := <-a:
			d.Select = append(d.Select, v)
		case v := <-c:
			d.Select = append(d.Select, v)
		}
	}
	d.ConstV1 = constV1.Int63()
	d.ConstV2 = constV2.Uint64()
	d.InitKey = hex.EncodeToString(initKey)
	out, _ := json.Marshal(d)
	pdk.Output(out)
	return 0
}
