//go:build !go1.24

package main

var extraSizes = "0 0"

func extraSetup()  {}
func extraWait()   {}
func extraReport() {}
