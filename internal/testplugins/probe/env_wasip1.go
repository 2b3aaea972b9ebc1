package main

import (
	"github.com/extism/go-pdk"
)

func getVar(key string) []byte        { return pdk.GetVar(key) }
func setVar(key string, value []byte) { pdk.SetVar(key, value) }

func fetch(url string) (uint16, string) {
	resp := pdk.NewHTTPRequest(pdk.MethodGet, url).Send()
	return resp.Status(), string(resp.Body())
}
