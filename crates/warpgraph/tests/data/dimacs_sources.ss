c sources for dimacs_tiny.gr
p aux sp ss 3

s 1
c between sources
s 4
s 2
