// stb_image's implementation, once for every test that decodes a PNG with it (the tests include
// <stb/stb_image.h> for its declarations only).
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>
