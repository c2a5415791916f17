cmake_dependent_option(USE_X [==[doc ]=] still]==] ON "A;B" OFF)
#[=[ option(NO "x" ON) ]=]
option(Y "q\"uoted\
" ON)
