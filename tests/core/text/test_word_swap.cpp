// text_swap_words: whole words only, both directions, capitals kept.
#include <doctest/doctest.h>

#include "text/word_swap.h"

using namespace attnviz;

TEST_CASE("word_swap: tired and wide trade places, both ways") {
  CHECK(text_swap_words("The animal didn't cross the street because it was too tired.", "tired", "wide") ==
        "The animal didn't cross the street because it was too wide.");
  CHECK(text_swap_words("The animal didn't cross the street because it was too wide.", "tired", "wide") ==
        "The animal didn't cross the street because it was too tired.");
  CHECK(text_swap_words("tired, wide, tired", "tired", "wide") == "wide, tired, wide");
}

TEST_CASE("word_swap: case, word boundaries and text without the words") {
  CHECK(text_swap_words("Tired? WIDE!", "tired", "wide") == "Wide? Tired!");
  CHECK(text_swap_words("tiredness widely", "tired", "wide") == "tiredness widely");
  CHECK(text_swap_words("피곤한tired wide한", "tired", "wide") == "피곤한tired wide한");
  CHECK(text_swap_words("no match here", "tired", "wide") == "no match here");
  CHECK(text_swap_words("", "tired", "wide").empty());
}
