if((A AND (B OR C)) AND D)
  option(NESTED "n" ${X})
endif()
foo(((((((( \\ ))))
