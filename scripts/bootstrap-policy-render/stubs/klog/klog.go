package klog

import "fmt"

func Fatalf(format string, args ...interface{}) { panic(fmt.Sprintf(format, args...)) }
