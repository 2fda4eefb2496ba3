module scalecheck

go 1.19
