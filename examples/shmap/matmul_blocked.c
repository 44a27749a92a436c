/* matmul_blocked.c - C = A * B for N x N static arrays in NB x NB blocks
 * (-DN=32 -DNB=8): the same product as matmul_naive.c, each block of C finished
 * from blocks of A and B that stay in a small cache. */
#ifndef N
#define N 32
#endif
#ifndef NB
#define NB 8
#endif
double A[N][N], B[N][N], C[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = i + j;
            B[i][j] = i == j;
        }
    for (int ii = 0; ii < N; ii += NB)
        for (int jj = 0; jj < N; jj += NB)
            for (int kk = 0; kk < N; kk += NB)
                for (int i = ii; i < ii + NB && i < N; i++)
                    for (int j = jj; j < jj + NB && j < N; j++) {
                        double s = C[i][j];
                        for (int k = kk; k < kk + NB && k < N; k++)
                            s += A[i][k] * B[k][j];
                        C[i][j] = s;
                    }
    return C[N - 1][N - 1] != 2.0 * (N - 1);
}
