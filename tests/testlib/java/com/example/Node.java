package com.example;
// A node of a cyclic graph: `next` may refer back to it.
public class Node implements java.io.Serializable {
  private static final long serialVersionUID = 6L;
  public int value;
  public Node next;
}
